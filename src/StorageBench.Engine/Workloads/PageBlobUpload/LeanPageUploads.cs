using System.Globalization;

namespace StorageBench.Engine.Workloads.PageBlobUpload;

/// <summary>
/// A slice's page blob requests on the lean driver: the Put Blob that creates a page blob at its size, and Put Page
/// (x-ms-page-write: update) of one range. It replaces PageBlobClient's CreateAsync / UploadPagesAsync for the measured
/// requests, as the block upload's lean requests replace the block blob calls: per loop, one reusable Put Page whose body is the
/// slice's shared page buffer and one reusable create. On the wire it is what Azure.Storage.Blobs 12.30 sends (the same
/// headers, signed by <see cref="BlobSharedKey"/>); LeanWireTests compares both.
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
    }

    private LeanRequest NewRequest(string? contentType) => LeanBlob.Request(_transport, HttpMethod.Put, contentType);

    /// <summary>A blob's address and its canonicalized resource path, once per blob.</summary>
    public LeanBlob Blob(string blobName) => LeanBlob.In(_transport, _container, blobName);

    /// <summary>Put Blob on loop <paramref name="worker"/>: the page blob, created at its full size (every page reads as zeros until written).</summary>
    public async Task CreateAsync(int worker, LeanBlob blob)
    {
        var request = _creates[worker];
        request.Message.RequestUri = new Uri(blob.Url + (_transport.Account.Sas is { } s ? "?" + s : ""));
        await blob.PutAsync(request, _wire, "").ConfigureAwait(false);
    }

    /// <summary>Put Page at <paramref name="offset"/>: the first <paramref name="size"/> bytes of the shared <paramref name="page"/> (both multiples of 512).</summary>
    public async Task UploadPagesAsync(int worker, LeanBlob blob, long offset, byte[] page, int size)
    {
        var request = _workers[worker];
        request.Message.RequestUri = new Uri(blob.Url + _pageQuery);
        request.Set("x-ms-range", LeanBlob.Range(offset, size));
        request.Content.Use(page, size);
        await blob.PutAsync(request, _wire, "\ncomp:page").ConfigureAwait(false);
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
