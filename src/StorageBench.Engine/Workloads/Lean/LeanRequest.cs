using System.Buffers;
using System.Net;
using System.Security.Cryptography;
using System.Text;

namespace StorageBench.Engine.Workloads.Lean;

/// <summary>
/// One worker's reusable request: the HttpRequestMessage (sent again and again through HttpMessageInvoker,
/// which — unlike HttpClient — does not refuse a message it has sent), its pooled body, a reusable
/// per-attempt timer and an HMAC keyed once. One per in-flight loop, never shared.
/// </summary>
public sealed class LeanRequest : IDisposable
{
    private readonly HMACSHA256? _hmac;

    /// <param name="contentType">Null for a request with no body and no Content-Type (a page blob's create).</param>
    public LeanRequest(LeanTransport transport, HttpMethod method, string? contentType, int capacity)
    {
        Transport = transport;
        Content = new PooledContent(capacity);
        // As the SDK writes it ("application/json;odata=nometadata"), not re-formatted by MediaTypeHeaderValue.
        ContentType = contentType;
        if (contentType is not null)
        {
            Content.Headers.TryAddWithoutValidation("Content-Type", contentType);
        }
        Message = new HttpRequestMessage(method, transport.Account.TableEndpoint ?? transport.Account.BlobEndpoint) { Content = Content, Version = HttpVersion.Version11 };
        Message.Headers.ExpectContinue = transport.Expect100Continue;
        _hmac = transport.Account.Key is { } key ? new HMACSHA256(key) : null;
    }

    public LeanTransport Transport { get; }

    public HttpRequestMessage Message { get; }

    public PooledContent Content { get; }

    public string? ContentType { get; }

    /// <summary>This request's x-ms-client-request-id, and the parts of its canonicalized resource (Blob Shared Key signs them).</summary>
    public string RequestId { get; set; } = "";

    public string CanonicalPath { get; set; } = "";

    public string CanonicalQuery { get; set; } = "";

    /// <summary>Where a string to sign is written, reused request after request.</summary>
    public char[] Scratch { get; set; } = new char[1024];

    /// <summary>Where Shared Key sorts this request's x-ms-* headers (<see cref="BlobSharedKey"/>), reused request after request.</summary>
    public (string Name, string Value)[] SignedHeaders { get; set; } = new (string, string)[16];

    public CancellationTokenSource Timer { get; private set; } = new();

    /// <summary>Where <see cref="ReadAnswerAsync"/> reads a response body, grown as needed and reused request after request.</summary>
    public byte[] Answer { get; private set; } = [];

    /// <summary>Reads <paramref name="response"/>'s body to its end into <see cref="Answer"/>, under the attempt's timer: its length.</summary>
    public async Task<int> ReadAnswerAsync(HttpResponseMessage response)
    {
        var stream = await response.Content.ReadAsStreamAsync(Timer.Token).ConfigureAwait(false);
        int length = 0;
        while (true)
        {
            if (length == Answer.Length)
            {
                var larger = new byte[Math.Max(16 * 1024, Answer.Length * 2)];
                Answer.AsSpan(0, length).CopyTo(larger);
                Answer = larger;
            }
            int read = await stream.ReadAsync(Answer.AsMemory(length), Timer.Token).ConfigureAwait(false);
            if (read == 0)
            {
                return length;
            }
            length += read;
        }
    }

    /// <summary>Ready for the next attempt: the same timer when it did not fire (no allocation), else a new one.</summary>
    public void ResetTimer()
    {
        if (!Timer.TryReset())
        {
            Timer.Dispose();
            Timer = new CancellationTokenSource();
        }
    }

    /// <summary>Replaces a header's value (headers storage reads change per request: date, id, auth).</summary>
    public void Set(string name, string value)
    {
        Message.Headers.Remove(name);
        Message.Headers.TryAddWithoutValidation(name, value);
    }

    /// <summary>base64(HMAC-SHA256(key, UTF-8 of <paramref name="stringToSign"/>)), with no intermediate arrays.</summary>
    public string Sign(ReadOnlySpan<char> stringToSign)
    {
        byte[] rented = ArrayPool<byte>.Shared.Rent(Encoding.UTF8.GetMaxByteCount(stringToSign.Length));
        try
        {
            int length = Encoding.UTF8.GetBytes(stringToSign, rented);
            Span<byte> mac = stackalloc byte[32];
            _hmac!.TryComputeHash(rented.AsSpan(0, length), mac, out _);
            return Convert.ToBase64String(mac);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(rented);
        }
    }

    public void Dispose()
    {
        Content.Release();
        Message.Dispose();
        Timer.Dispose();
        _hmac?.Dispose();
    }
}

/// <summary>A blob as the lean driver addresses it: its URL, and "/account/container/name" for Shared Key.</summary>
public sealed record LeanBlob(string Url, string CanonicalPath)
{
    /// <summary>The service version Azure.Storage.Blobs sends (the lean blob requests' x-ms-version on a real account).</summary>
    public const string ServiceVersion = "2026-10-06";

    /// <summary>The lean blob requests' User-Agent: the Azure.Storage.Blobs version this process loaded.</summary>
    public static readonly string UserAgent = LeanUserAgent.Replacing(typeof(Azure.Storage.Blobs.BlobServiceClient).Assembly);

    /// <summary>Blob <paramref name="blobName"/> under <paramref name="containerUrl"/> ("…/container/"), its URL ending in <paramref name="query"/>: once per blob.</summary>
    public static LeanBlob In(LeanTransport transport, string containerUrl, string blobName, string query = "")
    {
        string url = containerUrl + blobName;
        return new(url + query, "/" + transport.Account.Name + new Uri(url).AbsolutePath);
    }

    /// <summary>"{blob endpoint}/{container}/": where a lean blob driver's blobs are.</summary>
    public static string ContainerUrl(LeanTransport transport, string containerName) =>
        $"{transport.Account.BlobEndpoint ?? throw new InvalidOperationException("the lean blob driver needs a blob endpoint")}/{containerName}/";

    /// <summary>A reusable blob request with the headers the SDK sends on every one (Accept, User-Agent, x-ms-version, x-ms-return-client-request-id).</summary>
    public static LeanRequest Request(LeanTransport transport, HttpMethod method, string? contentType, int capacity = 0)
    {
        var request = new LeanRequest(transport, method, contentType, capacity);
        request.Set("Accept", "application/xml");
        request.Set("User-Agent", UserAgent);
        request.Set("x-ms-version", transport.Account.BlobVersion);
        request.Set("x-ms-return-client-request-id", "true");
        return request;
    }

    /// <summary>
    /// Sends a blob write (its URI and body set) to this blob, <paramref name="canonicalQuery"/> being its query as Shared Key
    /// signs it ("\ncomp:page"): a new client request id, signed again before every attempt.
    /// </summary>
    public async Task PutAsync(LeanRequest request, WireCounter wire, string canonicalQuery)
    {
        Address(request, canonicalQuery);
        using var response = await request.Transport.SendAsync(request, wire, BlobSharedKey.Signer, 201).ConfigureAwait(false);
        request.ResetTimer();
    }

    /// <summary>"bytes=first-last" (inclusive), as x-ms-range carries a range of a blob.</summary>
    public static string Range(long offset, long length) => string.Create(System.Globalization.CultureInfo.InvariantCulture, $"bytes={offset}-{offset + length - 1}");

    /// <summary>Points <paramref name="request"/> at this blob for signing, under a new x-ms-client-request-id.</summary>
    public void Address(LeanRequest request, string canonicalQuery)
    {
        request.RequestId = Guid.NewGuid().ToString();
        request.Set("x-ms-client-request-id", request.RequestId);
        (request.CanonicalPath, request.CanonicalQuery) = (CanonicalPath, canonicalQuery);
    }
}
