using System.Diagnostics;

namespace StorageBench.Engine.Workloads.BlobDownload;

/// <summary>
/// A slice's Get Blob requests on the lean driver, in place of BlobClient.DownloadStreamingAsync: one reusable GET per loop
/// (no body), signed by <see cref="BlobSharedKey"/>, its response read to the end into the loop's
/// buffer. On the wire it is what Azure.Storage.Blobs sends (the same path, x-ms-range, x-ms-version and headers);
/// LeanWireTests compares both on a loopback server.
/// </summary>
public sealed class LeanBlobDownloads : IDisposable
{
    private readonly LeanTransport _transport;
    private readonly WireCounter _wire;
    private readonly string _container;
    private readonly string _sas;
    private readonly LeanRequest[] _workers;

    public LeanBlobDownloads(LeanTransport transport, WireCounter wire, string containerName, int workers)
    {
        _transport = transport;
        _wire = wire;
        _container = LeanBlob.ContainerUrl(transport, containerName);
        _sas = transport.Account.Sas is { } s ? "?" + s : "";
        _workers = [.. Enumerable.Range(0, workers).Select(_ => NewRequest())];
    }

    private LeanRequest NewRequest()
    {
        var request = LeanBlob.Request(_transport, HttpMethod.Get, "");
        // A GET has no body: no Content-Length, no Content-Type (as the SDK sends it).
        request.Message.Content = null;
        return request;
    }

    /// <summary>A blob's address and its canonicalized resource path, once per blob.</summary>
    public LeanBlob Blob(string blobName) => LeanBlob.In(_transport, _container, blobName, _sas);

    /// <summary>
    /// Get Blob: the whole blob (<paramref name="length"/> 0) or <paramref name="length"/> bytes from <paramref name="offset"/>,
    /// read to the end into <paramref name="buffer"/> (each chunk handed to <paramref name="received"/>, when given).
    /// </summary>
    public async Task<Download> GetAsync(int worker, LeanBlob blob, long offset, long length, byte[] buffer, Action<byte[], int>? received)
    {
        var request = _workers[worker];
        request.Message.RequestUri = new Uri(blob.Url);
        string? range = length > 0 ? LeanBlob.Range(offset, length) : null;
        if (range is null)
        {
            request.Message.Headers.Remove("x-ms-range");
        }
        else
        {
            request.Set("x-ms-range", range);
        }
        blob.Address(request, "");
        try
        {
            using var response = await _transport.SendAsync(request, _wire, BlobSharedKey.Signer, range is null ? 200 : 206).ConfigureAwait(false);
            long firstByte = Stopwatch.GetTimestamp();
            // The body is read under the same per-attempt timer as the headers (a stalled body times out like a stalled answer).
            using var body = await response.Content.ReadAsStreamAsync(request.Timer.Token).ConfigureAwait(false);
            long bytes = 0;
            for (int n; (n = await body.ReadAsync(buffer, request.Timer.Token).ConfigureAwait(false)) > 0;)
            {
                received?.Invoke(buffer, n);
                bytes += n;
            }
            return new Download(firstByte, bytes);
        }
        finally
        {
            request.ResetTimer();
        }
    }

    public void Dispose()
    {
        foreach (var request in _workers)
        {
            request.Content.Dispose();
            request.Dispose();
        }
    }
}

/// <summary>One Get Blob's answer: when its headers arrived (Stopwatch timestamp), and the body's bytes read.</summary>
public readonly record struct Download(long FirstByteTimestamp, long Bytes);
