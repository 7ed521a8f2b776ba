
namespace StorageBench.Engine.Workloads.AppendBlobUpload;

/// <summary>
/// A slice's append blob requests on the lean driver: the Put Blob that creates an empty append blob, and Append Block
/// (comp=appendblock) whose body is the slice's shared buffer; per loop one reusable request of each. On the wire it is what
/// AppendBlobClient's CreateAsync and AppendBlockAsync send, signed by <see cref="BlobSharedKey"/>; LeanWireTests
/// compares both.
/// </summary>
public sealed class LeanAppendBlocks : IDisposable
{
    private readonly LeanTransport _transport;
    private readonly WireCounter _wire;
    private readonly string _container;
    private readonly LeanRequest[] _appends;
    private readonly LeanRequest[] _creates;

    public LeanAppendBlocks(LeanTransport transport, WireCounter wire, string containerName, int loops)
    {
        _transport = transport;
        _wire = wire;
        _container = LeanBlob.ContainerUrl(transport, containerName);
        _appends = [.. Enumerable.Range(0, loops).Select(_ => NewRequest("application/octet-stream"))];
        // The SDK sends a create with an empty body and no Content-Type.
        _creates = [.. Enumerable.Range(0, loops).Select(_ => NewRequest(null))];
        foreach (var create in _creates)
        {
            create.Set("x-ms-blob-type", "AppendBlob");
            create.Content.SetLength(0);
        }
    }

    private LeanRequest NewRequest(string? contentType) => LeanBlob.Request(_transport, HttpMethod.Put, contentType);

    /// <summary>A blob's address and its canonicalized resource path, once per blob.</summary>
    public LeanBlob Blob(string blobName) => LeanBlob.In(_transport, _container, blobName);

    /// <summary>Put Blob on loop <paramref name="loop"/>: the append blob, created empty.</summary>
    public Task CreateAsync(int loop, LeanBlob blob) => SendAsync(_creates[loop], blob, "", "");

    /// <summary>Append Block of the first <paramref name="size"/> bytes of the shared <paramref name="buffer"/> to the blob's end.</summary>
    public Task AppendAsync(int loop, LeanBlob blob, byte[] buffer, int size)
    {
        _appends[loop].Content.Use(buffer, size);
        return SendAsync(_appends[loop], blob, "?comp=appendblock", "\ncomp:appendblock");
    }

    private Task SendAsync(LeanRequest request, LeanBlob blob, string query, string canonicalQuery)
    {
        string sas = _transport.Account.Sas is { } s ? (query.Length == 0 ? "?" : "&") + s : "";
        request.Message.RequestUri = new Uri(blob.Url + query + sas);
        return blob.PutAsync(request, _wire, canonicalQuery);
    }

    public void Dispose()
    {
        foreach (var request in _appends.Concat(_creates))
        {
            request.Dispose();
        }
    }
}
