using System.Text;

namespace StorageBench.Engine.Workloads.BlobUpload;

/// <summary>
/// A slice's Put Block and Put Block List requests on the lean driver. It replaces BlockBlobClient's
/// StageBlockAsync / CommitBlockListAsync for the measured requests: the SDK wraps each block in a
/// stream, runs it through its pipeline (request-id, date, shared-key, logging and retry policies,
/// progress and validation wrappers) and serializes the block list as XML per blob. Here each block
/// worker reuses one request whose body is the slice's shared block buffer, and the block list XML
/// (the same for every blob) is encoded once. On the wire it is what Azure.Storage.Blobs 12.30 sends
/// (x-ms-version 2026-10-06, SharedKey / SAS / bearer auth, the same headers and body, BOM included);
/// LeanWireTests compares both on a loopback server.
/// </summary>
public sealed class LeanBlockUploads : IDisposable
{
    private readonly LeanTransport _transport;
    private readonly WireCounter _wire;
    private readonly string _container;
    private readonly string[] _blockQueries;
    // The query's part of the canonicalized resource, per block: "\nblockid:{id}\ncomp:block" (sorted, decoded).
    private readonly string[] _blockCanonical;
    private readonly byte[] _blockList;
    private readonly LeanRequest[] _workers;
    private readonly LeanRequest _commit;

    public LeanBlockUploads(LeanTransport transport, WireCounter wire, string containerName, IReadOnlyList<string> blockIds, int workers)
    {
        _transport = transport;
        _wire = wire;
        _container = LeanBlob.ContainerUrl(transport, containerName);
        string sas = transport.Account.Sas is { } s ? "&" + s : "";
        _blockQueries = [.. blockIds.Select(id => "?comp=block&blockid=" + Uri.EscapeDataString(id) + sas)];
        _blockCanonical = [.. blockIds.Select(id => $"\nblockid:{id}\ncomp:block")];
        // As the SDK serializes it: UTF-8 with a byte order mark, no XML declaration.
        _blockList = [.. Encoding.UTF8.Preamble, .. Encoding.UTF8.GetBytes("<BlockList>" + string.Concat(blockIds.Select(id => $"<Latest>{id}</Latest>")) + "</BlockList>")];
        _workers = [.. Enumerable.Range(0, workers).Select(_ => NewRequest("application/octet-stream", 0))];
        _commit = NewRequest("application/xml", _blockList.Length);
    }

    private LeanRequest NewRequest(string contentType, int capacity) => LeanBlob.Request(_transport, HttpMethod.Put, contentType, capacity);

    /// <summary>A blob's address and its canonicalized resource path, once per blob.</summary>
    public LeanBlob Blob(string blobName) => LeanBlob.In(_transport, _container, blobName);

    /// <summary>Put Block <paramref name="index"/> of a blob: the first <paramref name="size"/> bytes of the shared <paramref name="block"/>.</summary>
    public async Task StageBlockAsync(int worker, LeanBlob blob, int index, byte[] block, int size)
    {
        var request = _workers[worker];
        request.Message.RequestUri = new Uri(blob.Url + _blockQueries[index]);
        request.Content.Use(block, size);
        await blob.PutAsync(request, _wire, _blockCanonical[index]).ConfigureAwait(false);
    }

    /// <summary>Put Block List of every block id (every blob of a slice has the same blocks).</summary>
    public async Task CommitBlockListAsync(LeanBlob blob)
    {
        _commit.Message.RequestUri = new Uri(blob.Url + "?comp=blocklist" + (_transport.Account.Sas is { } s ? "&" + s : ""));
        _blockList.CopyTo(_commit.Content.Reserve(_blockList.Length), 0);
        _commit.Content.SetLength(_blockList.Length);
        await blob.PutAsync(_commit, _wire, "\ncomp:blocklist").ConfigureAwait(false);
    }

    public void Dispose()
    {
        foreach (var request in _workers)
        {
            request.Dispose();
        }
        _commit.Dispose();
    }
}
