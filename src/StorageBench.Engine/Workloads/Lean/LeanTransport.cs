using System.Buffers;
using System.Globalization;
using System.Net;
using System.Security.Cryptography;
using System.Text;
using Azure;
using Azure.Core;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Workloads.Lean;

/// <summary>
/// The lean driver's HTTP layer (<c>client.driver: "lean"</c>). It replaces, for the measured requests
/// only, what Azure.Core's HttpPipeline does around each storage call — request-id, date and auth
/// policies, per-retry policies, the logging/diagnostics scopes and the response classifier — because
/// that machinery costs more driver CPU per request than the request itself on a batch of 100 1 KB
/// entities (see BENCHMARKS.md, "Lean driver"). What it keeps identical to the SDK: the headers storage
/// reads (x-ms-version, x-ms-date, x-ms-client-request-id, auth), the network timeout per attempt
/// (a TaskCanceledException not caused by our token, as Azure.Core throws), failures as
/// RequestFailedException with the service's status and error code (so OutcomeClassifier counts them
/// exactly as before), and, with <c>client.sdkRetries</c>, Azure.Core's default retry policy. Every
/// attempt is counted on the same <see cref="WireCounter"/> the SDK clients count on.
/// </summary>
public sealed class LeanTransport : IDisposable
{
    /// <summary>Azure.Core's RetryOptions defaults: 3 retries, exponential from 0.8 s, at most 1 min.</summary>
    private const int MaxRetries = 3;
    private static readonly TimeSpan RetryDelay = TimeSpan.FromSeconds(0.8), MaxRetryDelay = TimeSpan.FromMinutes(1);
    private const string StorageScope = "https://storage.azure.com/.default";

    private readonly HttpMessageInvoker _invoker;
    private readonly TokenCredential? _credential;
    private readonly SemaphoreSlim _tokenRefresh = new(1, 1);
    private volatile string? _bearer;
    private DateTimeOffset _bearerRefreshAt;

    internal LeanTransport(ClientSettings settings, LeanAccount account, TokenCredential? credential)
    {
        Account = account;
        _credential = account.Key is null && account.Sas is null ? credential : null;
        Timeout = TimeSpan.FromSeconds(settings.RequestTimeoutSeconds);
        Retries = settings.SdkRetries;
        Expect100Continue = settings.Expect100Continue;
        // Its own handler, configured as the SDK clients' one; no activity headers (the SDK path sends none either).
        _invoker = new HttpMessageInvoker(new SocketsHttpHandler
        {
            MaxConnectionsPerServer = settings.MaxConnectionsPerServer,
            PooledConnectionLifetime = settings.ConnectionPooling ? TimeSpan.FromMinutes(5) : TimeSpan.Zero,
            ActivityHeadersPropagator = null,
            UseCookies = false,
            AllowAutoRedirect = false,
        });
    }

    public LeanAccount Account { get; }

    public TimeSpan Timeout { get; }

    public bool Retries { get; }

    public bool Expect100Continue { get; }

    /// <summary>True when requests carry a bearer token (managed identity) instead of a shared-key signature or SAS.</summary>
    public bool UsesToken => _credential is not null;

    /// <summary>
    /// "Bearer …" for the storage scope, cached and refreshed 5 minutes before it expires (as Azure.Core's
    /// BearerTokenAuthenticationPolicy does); one caller refreshes, the others keep the still-valid token.
    /// </summary>
    public async ValueTask<string> BearerAsync()
    {
        var bearer = _bearer;
        if (bearer is not null && DateTimeOffset.UtcNow < _bearerRefreshAt)
        {
            return bearer;
        }
        await _tokenRefresh.WaitAsync().ConfigureAwait(false);
        try
        {
            if (_bearer is null || DateTimeOffset.UtcNow >= _bearerRefreshAt)
            {
                var token = await _credential!.GetTokenAsync(new TokenRequestContext([StorageScope]), CancellationToken.None).ConfigureAwait(false);
                _bearerRefreshAt = token.ExpiresOn - TimeSpan.FromMinutes(5);
                _bearer = "Bearer " + token.Token;
            }
            return _bearer;
        }
        finally
        {
            _tokenRefresh.Release();
        }
    }

    /// <summary>
    /// Sends a prepared request (re-signed before every attempt by <paramref name="sign"/>) and returns the
    /// response whose status the caller accepts; any other status becomes the RequestFailedException the
    /// SDK would throw. With retries on, 408/429/500/502/503/504 and network failures are sent again
    /// after Azure.Core's back-off; giving up on exceptions throws them together, as Azure.Core does.
    /// </summary>
    public async Task<HttpResponseMessage> SendAsync(LeanRequest request, WireCounter wire, Func<LeanRequest, ValueTask> sign, int expectedStatus)
    {
        List<Exception>? failures = null;
        for (int attempt = 0; ; attempt++)
        {
            await sign(request).ConfigureAwait(false);
            wire.Increment();
            HttpResponseMessage? response = null;
            try
            {
                request.Timer.CancelAfter(Timeout);
                response = await _invoker.SendAsync(request.Message, request.Timer.Token).ConfigureAwait(false);
                if ((int)response.StatusCode == expectedStatus)
                {
                    // The body (a batch's answers) is read by the caller under the same timer.
                    return response;
                }
                if (!Retries || attempt >= MaxRetries || !IsRetriable(response.StatusCode))
                {
                    throw await FailureAsync(response).ConfigureAwait(false);
                }
            }
            catch (Exception ex) when (Retries && attempt < MaxRetries && ex is not RequestFailedException && OutcomeClassifier.Classify(ex, CancellationToken.None) is not null)
            {
                (failures ??= []).Add(ex);
            }
            catch (Exception ex) when (failures is not null && ex is not RequestFailedException && OutcomeClassifier.Classify(ex, CancellationToken.None) is not null)
            {
                failures.Add(ex);
                throw new AggregateException($"Retry failed after {failures.Count} tries.", failures);
            }
            finally
            {
                if (response is null || (int)response.StatusCode != expectedStatus)
                {
                    request.ResetTimer();
                }
            }
            var delay = response is null ? BackOff(attempt) : RetryAfter(response) ?? BackOff(attempt);
            response?.Dispose();
            await Task.Delay(delay).ConfigureAwait(false);
        }
    }

    private static bool IsRetriable(HttpStatusCode status) => (int)status is 408 or 429 or 500 or 502 or 503 or 504;

    private static TimeSpan BackOff(int attempt) =>
        TimeSpan.FromMilliseconds(Math.Min(MaxRetryDelay.TotalMilliseconds, (1 << attempt) * RetryDelay.TotalMilliseconds * (0.8 + Random.Shared.NextDouble() * 0.4)));

    private static TimeSpan? RetryAfter(HttpResponseMessage response)
    {
        foreach (var name in new[] { "retry-after-ms", "x-ms-retry-after-ms" })
        {
            if (response.Headers.TryGetValues(name, out var values) && double.TryParse(values.First(), NumberStyles.Float, CultureInfo.InvariantCulture, out double ms))
            {
                return TimeSpan.FromMilliseconds(ms);
            }
        }
        return response.Headers.RetryAfter?.Delta;
    }

    /// <summary>
    /// The exception the SDK raises for a status it does not accept: RequestFailedException with the
    /// status and the error code from x-ms-error-code, else from the body's "code" (tables' odata.error).
    /// </summary>
    public static async Task<RequestFailedException> FailureAsync(HttpResponseMessage response)
    {
        using (response)
        {
            string body = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
            string? code = response.Headers.TryGetValues("x-ms-error-code", out var values) ? values.FirstOrDefault() : ErrorCodeIn(body);
            var failure = new RequestFailedException((int)response.StatusCode, $"Service request failed.\nStatus: {(int)response.StatusCode} ({response.ReasonPhrase})\nErrorCode: {code}\n\n{body}", code, null);
            // No Azure.Core response to read it from later: the service's retry-after travels with the failure (BlockRetryDelays honours it).
            failure.Data[BlockRetryDelays.ServerDelayKey] = RetryAfter(response);
            return failure;
        }
    }

    /// <summary>The "code" of a storage error body: JSON ("code":"…") or XML (&lt;Code&gt;…&lt;/Code&gt;).</summary>
    public static string? ErrorCodeIn(string body)
    {
        int at = body.IndexOf("\"code\"", StringComparison.Ordinal);
        if (at >= 0)
        {
            int open = body.IndexOf('"', body.IndexOf(':', at) + 1);
            int close = open < 0 ? -1 : body.IndexOf('"', open + 1);
            return close > open ? body[(open + 1)..close] : null;
        }
        at = body.IndexOf("<Code>", StringComparison.Ordinal);
        int end = at < 0 ? -1 : body.IndexOf("</Code>", at, StringComparison.Ordinal);
        return end > at ? body[(at + 6)..end] : null;
    }

    public void Dispose()
    {
        _invoker.Dispose();
        _tokenRefresh.Dispose();
    }
}

/// <summary>
/// The account as the lean driver signs for it: name, endpoints, and the shared key (connection strings
/// with AccountKey, and Azurite's development account) or a SAS (its query is appended to every request).
/// Without either, requests carry a managed-identity bearer token.
/// </summary>
public sealed record LeanAccount(string Name, Uri TableEndpoint, Uri BlobEndpoint, byte[]? Key, string? Sas)
{
    private const string DevelopmentKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    /// <summary>Endpoints and name as the SDK clients resolved them, the secret from the connection string.</summary>
    public static LeanAccount From(string? connectionString, string accountName, Uri tableEndpoint, Uri blobEndpoint)
    {
        var values = (connectionString ?? "").Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select(p => p.Split('=', 2)).Where(p => p.Length == 2)
            .GroupBy(p => p[0], StringComparer.OrdinalIgnoreCase).ToDictionary(g => g.Key, g => g.Last()[1], StringComparer.OrdinalIgnoreCase);
        string? key = values.GetValueOrDefault("AccountKey")
            ?? (values.TryGetValue("UseDevelopmentStorage", out var dev) && dev.Equals("true", StringComparison.OrdinalIgnoreCase) ? DevelopmentKey : null);
        string? sas = values.GetValueOrDefault("SharedAccessSignature")?.TrimStart('?');
        return new(accountName, Trim(tableEndpoint), Trim(blobEndpoint), key is null ? null : Convert.FromBase64String(key), key is null ? sas : null);
    }

    private static Uri Trim(Uri endpoint) => new(endpoint.GetLeftPart(UriPartial.Path).TrimEnd('/'));
}

/// <summary>
/// One worker's reusable request: the HttpRequestMessage (sent again and again through HttpMessageInvoker,
/// which — unlike HttpClient — does not refuse a message it has sent), its pooled body, a reusable
/// per-attempt timer and an HMAC keyed once. One per in-flight loop, never shared.
/// </summary>
public sealed class LeanRequest : IDisposable
{
    private readonly HMACSHA256? _hmac;

    public LeanRequest(LeanTransport transport, HttpMethod method, string contentType, int capacity)
    {
        Transport = transport;
        Content = new PooledContent(capacity);
        // As the SDK writes it ("application/json;odata=nometadata"), not re-formatted by MediaTypeHeaderValue.
        ContentType = contentType;
        Content.Headers.TryAddWithoutValidation("Content-Type", contentType);
        Message = new HttpRequestMessage(method, transport.Account.TableEndpoint) { Content = Content, Version = HttpVersion.Version11 };
        Message.Headers.ExpectContinue = transport.Expect100Continue;
        _hmac = transport.Account.Key is { } key ? new HMACSHA256(key) : null;
    }

    public LeanTransport Transport { get; }

    public HttpRequestMessage Message { get; }

    public PooledContent Content { get; }

    public string ContentType { get; }

    /// <summary>This request's x-ms-client-request-id, and the parts of its canonicalized resource (Blob Shared Key signs them).</summary>
    public string RequestId { get; set; } = "";

    public string CanonicalPath { get; set; } = "";

    public string CanonicalQuery { get; set; } = "";

    /// <summary>Where a string to sign is written, reused request after request.</summary>
    public char[] Scratch { get; set; } = new char[1024];

    public CancellationTokenSource Timer { get; private set; } = new();

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
        Message.Dispose();
        Timer.Dispose();
        _hmac?.Dispose();
    }
}

/// <summary>A blob as the lean driver addresses it: its URL, and "/account/container/name" for Shared Key.</summary>
public sealed record LeanBlob(string Url, string CanonicalPath);

/// <summary>A request body written into one reusable buffer; sent as it is, with its length set per request.</summary>
public sealed class PooledContent(int capacity) : HttpContent
{
    public byte[] Buffer { get; private set; } = new byte[capacity];

    public int Length { get; private set; }

    /// <summary>Buffer with room for at least <paramref name="size"/> bytes (grown once, when a shape needs more).</summary>
    public byte[] Reserve(int size)
    {
        if (Buffer.Length < size)
        {
            Buffer = new byte[size];
        }
        return Buffer;
    }

    public void SetLength(int length)
    {
        Length = length;
        Headers.ContentLength = length;
    }

    /// <summary>Sends an outside array (a blob block shared by all workers) instead of the own buffer.</summary>
    public void Use(byte[] shared, int length)
    {
        Buffer = shared;
        SetLength(length);
    }

    protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) => stream.WriteAsync(Buffer, 0, Length);

    protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken) =>
        stream.WriteAsync(Buffer.AsMemory(0, Length), cancellationToken).AsTask();

    protected override void SerializeToStream(Stream stream, TransportContext? context, CancellationToken cancellationToken) => stream.Write(Buffer, 0, Length);

    protected override bool TryComputeLength(out long length)
    {
        length = Length;
        return true;
    }

    /// <summary>Not disposed with a response or a send: the worker reuses it.</summary>
    protected override void Dispose(bool disposing)
    {
    }
}

/// <summary>x-ms-date values: one string per second, shared by every request in it.</summary>
internal static class RequestDate
{
    private sealed record Stamp(long Second, string Value);

    private static volatile Stamp _current = new(0, "");

    public static string Now()
    {
        var now = DateTimeOffset.UtcNow;
        long second = now.ToUnixTimeSeconds();
        var current = _current;
        if (current.Second != second)
        {
            _current = current = new Stamp(second, now.ToString("r", CultureInfo.InvariantCulture));
        }
        return current.Value;
    }
}
