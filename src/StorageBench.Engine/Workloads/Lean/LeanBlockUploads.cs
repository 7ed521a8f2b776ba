using System.Text;
using StorageBench.Engine.Measurement;

namespace StorageBench.Engine.Workloads.Lean;

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
    /// <summary>The service version Azure.Storage.Blobs 12.30 sends.</summary>
    public const string ServiceVersion = "2026-10-06";
    public const string UserAgent = "StorageBench-lean (replaces azsdk-net-Storage.Blobs/12.30.1)";

    private readonly LeanTransport _transport;
    private readonly WireCounter _wire;
    private readonly string _container;
    private readonly string[] _blockQueries;
    private readonly byte[] _blockList;
    private readonly LeanRequest[] _workers;
    private readonly LeanRequest _commit;
    private readonly Func<LeanRequest, ValueTask> _sign;

    public LeanBlockUploads(LeanTransport transport, WireCounter wire, string containerName, IReadOnlyList<string> blockIds, int workers)
    {
        _transport = transport;
        _wire = wire;
        _container = $"{transport.Account.BlobEndpoint}/{containerName}/";
        string sas = transport.Account.Sas is { } s ? "&" + s : "";
        _blockQueries = [.. blockIds.Select(id => "?comp=block&blockid=" + Uri.EscapeDataString(id) + sas)];
        // As the SDK serializes it: UTF-8 with a byte order mark, no XML declaration.
        _blockList = [.. Encoding.UTF8.Preamble, .. Encoding.UTF8.GetBytes("<BlockList>" + string.Concat(blockIds.Select(id => $"<Latest>{id}</Latest>")) + "</BlockList>")];
        _workers = [.. Enumerable.Range(0, workers).Select(_ => NewRequest("application/octet-stream", 0))];
        _commit = NewRequest("application/xml", _blockList.Length);
        _sign = SignAsync;
    }

    private LeanRequest NewRequest(string contentType, int capacity)
    {
        var request = new LeanRequest(_transport, HttpMethod.Put, contentType, capacity);
        request.Set("Accept", "application/xml");
        request.Set("User-Agent", UserAgent);
        request.Set("x-ms-version", ServiceVersion);
        request.Set("x-ms-return-client-request-id", "true");
        return request;
    }

    /// <summary>The blob's address, once per blob.</summary>
    public string BlobUrl(string blobName) => _container + blobName;

    /// <summary>Put Block <paramref name="index"/> of a blob: the first <paramref name="size"/> bytes of the shared <paramref name="block"/>.</summary>
    public async Task StageBlockAsync(int worker, string blobUrl, int index, byte[] block, int size)
    {
        var request = _workers[worker];
        request.Message.RequestUri = new Uri(blobUrl + _blockQueries[index]);
        request.Content.Use(block, size);
        await SendAsync(request).ConfigureAwait(false);
    }

    /// <summary>Put Block List of the first <paramref name="blockCount"/> ids (every blob of a slice has the same count).</summary>
    public async Task CommitBlockListAsync(string blobUrl)
    {
        _commit.Message.RequestUri = new Uri(blobUrl + "?comp=blocklist" + (_transport.Account.Sas is { } s ? "&" + s : ""));
        _blockList.CopyTo(_commit.Content.Reserve(_blockList.Length), 0);
        _commit.Content.SetLength(_blockList.Length);
        await SendAsync(_commit).ConfigureAwait(false);
    }

    private async Task SendAsync(LeanRequest request)
    {
        request.Set("x-ms-client-request-id", Guid.NewGuid().ToString());
        using var response = await _transport.SendAsync(request, _wire, _sign, 201).ConfigureAwait(false);
        request.ResetTimer();
    }

    private async ValueTask SignAsync(LeanRequest request)
    {
        string date = RequestDate.Now();
        request.Set("x-ms-date", date);
        if (_transport.UsesToken)
        {
            request.Set("Authorization", await _transport.BearerAsync().ConfigureAwait(false));
        }
        else if (_transport.Account.Key is not null)
        {
            request.Set("Authorization", $"SharedKey {_transport.Account.Name}:{request.Sign(StringToSign(request, date))}");
        }
    }

    /// <summary>
    /// Shared Key for the Blob service (version 2009-09-19 and later): the verb, the standard headers this
    /// request has (Content-Length, Content-Type; the others are empty), the x-ms-* headers sorted, then
    /// "/account/path" and the query parameters sorted by name, decoded. comp and blockid are all we send.
    /// </summary>
    internal static string StringToSign(LeanRequest request, string date)
    {
        var message = request.Message;
        var uri = message.RequestUri!;
        string query = uri.Query;
        var resource = new StringBuilder("/").Append(request.Transport.Account.Name).Append(uri.AbsolutePath);
        foreach (var (name, value) in query.TrimStart('?').Split('&', StringSplitOptions.RemoveEmptyEntries)
            .Select(p => p.Split('=', 2)).Select(p => (Name: Uri.UnescapeDataString(p[0]).ToLowerInvariant(), Value: Uri.UnescapeDataString(p.Length > 1 ? p[1] : "")))
            .OrderBy(p => p.Name, StringComparer.Ordinal))
        {
            resource.Append('\n').Append(name).Append(':').Append(value);
        }
        long length = request.Content.Length;
        string id = message.Headers.GetValues("x-ms-client-request-id").First();
        return $"PUT\n\n\n{(length == 0 ? "" : length.ToString(System.Globalization.CultureInfo.InvariantCulture))}\n\n{request.ContentType}\n\n\n\n\n\n\n" +
            $"x-ms-client-request-id:{id}\nx-ms-date:{date}\nx-ms-return-client-request-id:true\nx-ms-version:{ServiceVersion}\n{resource}";
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
