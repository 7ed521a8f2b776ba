using System.Globalization;
using StorageBench.Engine.Measurement;

namespace StorageBench.Engine.Workloads.Lean;

/// <summary>
/// A slice's page blob requests on the lean driver: the Put Blob that creates a page blob at its size, and Put Page
/// (x-ms-page-write: update) of one range. It replaces PageBlobClient's CreateAsync / UploadPagesAsync for the measured
/// requests as <see cref="LeanBlockUploads"/> replaces the block blob calls: per loop, one reusable Put Page whose body is the
/// slice's shared page buffer and one reusable create. On the wire it is what Azure.Storage.Blobs 12.30 sends (the same
/// headers, Shared Key signed over them); LeanWireTests compares both.
/// </summary>
public sealed class LeanPageUploads : IDisposable
{
    private readonly LeanTransport _transport;
    private readonly WireCounter _wire;
    private readonly string _container;
    private readonly string _pageQuery;
    private readonly string _blobSize;
    private readonly LeanRequest[] _workers;
    private readonly LeanRequest[] _creates;
    private readonly Func<LeanRequest, ValueTask> _signCreate;
    // Per range loop: its signer, and the x-ms-range its request carries now (signed with it).
    private readonly Func<LeanRequest, ValueTask>[] _signPage;
    private readonly string[] _range;

    /// <param name="blobSizeBytes">Every blob's size (x-ms-blob-content-length of the create).</param>
    public LeanPageUploads(LeanTransport transport, WireCounter wire, string containerName, long blobSizeBytes, int workers)
    {
        _transport = transport;
        _wire = wire;
        _container = LeanBlob.ContainerUrl(transport, containerName);
        string sas = transport.Account.Sas is { } s ? "&" + s : "";
        _pageQuery = "?comp=page" + sas;
        _blobSize = blobSizeBytes.ToString(CultureInfo.InvariantCulture);
        _workers = [.. Enumerable.Range(0, workers).Select(_ => NewRequest("application/octet-stream"))];
        foreach (var page in _workers)
        {
            page.Set("x-ms-page-write", "update");
        }
        // The SDK sends a create with an empty body and no Content-Type.
        _creates = [.. Enumerable.Range(0, workers).Select(_ => NewRequest(null))];
        foreach (var create in _creates)
        {
            create.Set("x-ms-blob-type", "PageBlob");
            create.Set("x-ms-blob-content-length", _blobSize);
            create.Content.SetLength(0);
        }
        _signCreate = request => SignAsync(request, CreateHeaders(request));
        _range = new string[workers];
        _signPage = [.. Enumerable.Range(0, workers).Select(w => (Func<LeanRequest, ValueTask>)(request => SignAsync(request, PageHeaders(request, _range[w]))))];
    }

    /// <summary>"bytes=first-last" (inclusive), as x-ms-range carries a page range.</summary>
    public static string Range(long offset, long length) => string.Create(CultureInfo.InvariantCulture, $"bytes={offset}-{offset + length - 1}");

    private LeanRequest NewRequest(string? contentType) => LeanBlob.Request(_transport, HttpMethod.Put, contentType);

    /// <summary>A blob's address and its canonicalized resource path, once per blob.</summary>
    public LeanBlob Blob(string blobName) => LeanBlob.In(_transport, _container, blobName);

    /// <summary>Put Blob on loop <paramref name="worker"/>: the page blob, created at its full size (every page reads as zeros until written).</summary>
    public async Task CreateAsync(int worker, LeanBlob blob)
    {
        var request = _creates[worker];
        request.Message.RequestUri = new Uri(blob.Url + (_transport.Account.Sas is { } s ? "?" + s : ""));
        await SendAsync(request, blob.CanonicalPath, "", _signCreate).ConfigureAwait(false);
    }

    /// <summary>Put Page at <paramref name="offset"/>: the first <paramref name="size"/> bytes of the shared <paramref name="page"/> (both multiples of 512).</summary>
    public async Task UploadPagesAsync(int worker, LeanBlob blob, long offset, byte[] page, int size)
    {
        var request = _workers[worker];
        request.Message.RequestUri = new Uri(blob.Url + _pageQuery);
        _range[worker] = Range(offset, size);
        request.Set("x-ms-range", _range[worker]);
        request.Content.Use(page, size);
        await SendAsync(request, blob.CanonicalPath, "\ncomp:page", _signPage[worker]).ConfigureAwait(false);
    }

    private async Task SendAsync(LeanRequest request, string canonicalPath, string canonicalQuery, Func<LeanRequest, ValueTask> sign)
    {
        request.RequestId = Guid.NewGuid().ToString();
        request.Set("x-ms-client-request-id", request.RequestId);
        (request.CanonicalPath, request.CanonicalQuery) = (canonicalPath, canonicalQuery);
        using var response = await _transport.SendAsync(request, _wire, sign, 201).ConfigureAwait(false);
        request.ResetTimer();
    }

    /// <param name="canonicalHeaders">The x-ms-* headers but the date, sorted, around where x-ms-date goes: what they sign.</param>
    private async ValueTask SignAsync(LeanRequest request, (string BeforeDate, string AfterDate) canonicalHeaders)
    {
        string date = RequestDate.Now();
        request.Set("x-ms-date", date);
        if (_transport.UsesToken)
        {
            request.Set("Authorization", await _transport.BearerAsync().ConfigureAwait(false));
        }
        else if (_transport.Account.Key is not null)
        {
            request.Set("Authorization", $"SharedKey {_transport.Account.Name}:{Sign(request, $"{canonicalHeaders.BeforeDate}x-ms-date:{date}\n{canonicalHeaders.AfterDate}")}");
        }
    }

    // The x-ms-* headers each request carries, lower-case and sorted by name, as Shared Key canonicalizes them.
    private (string, string) CreateHeaders(LeanRequest request) =>
        ($"x-ms-blob-content-length:{_blobSize}\nx-ms-blob-type:PageBlob\nx-ms-client-request-id:{request.RequestId}\n",
            $"x-ms-return-client-request-id:true\nx-ms-version:{request.Transport.Account.BlobVersion}\n");

    private static (string, string) PageHeaders(LeanRequest request, string range) =>
        ($"x-ms-client-request-id:{request.RequestId}\n",
            $"x-ms-page-write:update\nx-ms-range:{range}\nx-ms-return-client-request-id:true\nx-ms-version:{request.Transport.Account.BlobVersion}\n");

    /// <summary>
    /// Shared Key for the Blob service (see <see cref="LeanBlockUploads.SignBlobRequest"/>): the verb, Content-Length (empty
    /// when 0) and Content-Type, the other standard headers empty, the x-ms-* headers, then "/account/path" and the query.
    /// </summary>
    private static string Sign(LeanRequest request, string canonicalHeaders)
    {
        long length = request.Content.Length;
        return request.Sign(string.Create(CultureInfo.InvariantCulture,
            $"PUT\n\n\n{(length == 0 ? null : length)}\n\n{request.ContentType}\n\n\n\n\n\n\n{canonicalHeaders}{request.CanonicalPath}{request.CanonicalQuery}"));
    }

    public void Dispose()
    {
        foreach (var request in _workers)
        {
            request.Dispose();
        }
        foreach (var request in _creates)
        {
            request.Dispose();
        }
    }
}
