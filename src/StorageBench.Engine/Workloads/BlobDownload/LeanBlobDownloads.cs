using System.Diagnostics;
using System.Globalization;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Workloads.Lean;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// A slice's Get Blob requests on the lean driver, in place of BlobClient.DownloadStreamingAsync: one reusable GET per loop
/// (no body), signed with Shared Key as <see cref="LeanBlockUploads"/> signs, its response read to the end into the loop's
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
    private readonly Func<LeanRequest, ValueTask> _sign;

    public LeanBlobDownloads(LeanTransport transport, WireCounter wire, string containerName, int workers)
    {
        _transport = transport;
        _wire = wire;
        _container = LeanBlob.ContainerUrl(transport, containerName);
        _sas = transport.Account.Sas is { } s ? "?" + s : "";
        _workers = [.. Enumerable.Range(0, workers).Select(_ => NewRequest())];
        _sign = SignAsync;
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
        string? range = length > 0 ? string.Create(CultureInfo.InvariantCulture, $"bytes={offset}-{offset + length - 1}") : null;
        if (range is null)
        {
            request.Message.Headers.Remove("x-ms-range");
        }
        else
        {
            request.Set("x-ms-range", range);
        }
        request.RequestId = Guid.NewGuid().ToString();
        request.Set("x-ms-client-request-id", request.RequestId);
        (request.CanonicalPath, request.CanonicalQuery) = (blob.CanonicalPath, "");
        try
        {
            using var response = await _transport.SendAsync(request, _wire, _sign, range is null ? 200 : 206).ConfigureAwait(false);
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
            request.Set("Authorization", $"SharedKey {_transport.Account.Name}:{SignGet(request, date)}");
        }
    }

    /// <summary>
    /// Shared Key for a Blob service GET: no standard header is set (a GET has no body), the x-ms-* headers sorted (x-ms-range,
    /// when sent, between x-ms-date and x-ms-return-client-request-id), then "/account/container/blob"; no query is signed.
    /// </summary>
    internal static string SignGet(LeanRequest request, string date)
    {
        string range = request.Message.Headers.TryGetValues("x-ms-range", out var values) ? $"x-ms-range:{values.First()}\n" : "";
        var scratch = request.Scratch;
        int written;
        while (!scratch.AsSpan().TryWrite(CultureInfo.InvariantCulture,
            $"GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-client-request-id:{request.RequestId}\nx-ms-date:{date}\n{range}x-ms-return-client-request-id:true\nx-ms-version:{request.Transport.Account.BlobVersion}\n{request.CanonicalPath}",
            out written))
        {
            scratch = request.Scratch = new char[scratch.Length * 2];
        }
        return request.Sign(scratch.AsSpan(0, written));
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
