using System.Net;
using Azure;
using Azure.Core;

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

    /// <summary>The wait the service asked for (<see cref="BlockRetryDelays.FromHeaders"/>: both Retry-After forms), never below zero.</summary>
    private static TimeSpan? RetryAfter(HttpResponseMessage response) =>
        BlockRetryDelays.FromHeaders(name => response.Headers.TryGetValues(name, out var values) ? values.FirstOrDefault() : null) is { } d
            ? (d > TimeSpan.Zero ? d : TimeSpan.Zero)
            : null;

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
