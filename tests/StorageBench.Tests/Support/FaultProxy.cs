using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using StorageBench.Cli;
using StorageBench.Engine.Targets;

namespace StorageBench.Tests;

/// <summary>What the proxy does to one selected request.</summary>
public enum Fault
{
    /// <summary>Forwarded untouched.</summary>
    None,
    /// <summary>Answered 503 ServerBusy, as Azure Storage does when it throttles.</summary>
    Throttle,
    /// <summary>Held without an answer until the client gives up (its request timeout), never forwarded: nothing lands.</summary>
    Hang,
    /// <summary>Forwarded after <see cref="FaultProxy.SlowDelay"/>: a slow success.</summary>
    Slow,
    /// <summary>The connection is dropped after the status line, before the body (a network error); never forwarded.</summary>
    Drop,
    /// <summary>Held for the proxy's <see cref="FaultProxy.LateBy"/>, then forwarded if the client still waits: slow past a call's timeout, nothing lands early.</summary>
    Late,
    /// <summary>Answered 404 in the service's error format (BlobNotFound / ResourceNotFound, no body for HEAD); never forwarded.</summary>
    NotFound,
}

/// <summary>
/// A loopback reverse proxy in front of Azurite that injects faults into the requests a predicate
/// selects — 503 ServerBusy to every Nth (or to any that would put more than maxInFlight selected
/// requests in flight: a service at capacity), or, by a schedule over the selected requests' order,
/// hangs, slow answers and dropped connections — and forwards everything else. Azure's throttling and
/// a flaky network cannot be had on this machine; this is the stand-in, and it counts exactly what it
/// injected, by kind.
/// </summary>
public sealed class FaultProxy : IAsyncDisposable
{
    private static readonly HashSet<string> HopHeaders = new(StringComparer.OrdinalIgnoreCase) { "Host", "Connection", "Transfer-Encoding", "Keep-Alive", "Expect" };
    private readonly HttpClient _upstream = new(new SocketsHttpHandler { AllowAutoRedirect = false, UseCookies = false });
    private readonly long[] _injected = new long[Enum.GetValues<Fault>().Length];
    private long _selected;
    private long _inFlight;
    private long _seen;

    private LoopbackServer? _server;

    public Uri Address => _server!.Address;

    /// <summary>How long a <see cref="Fault.Slow"/> request is held before it is forwarded.</summary>
    public static readonly TimeSpan SlowDelay = TimeSpan.FromMilliseconds(400);

    /// <summary>How long a <see cref="Fault.Late"/> request is held.</summary>
    public TimeSpan LateBy { get; private init; }

    /// <summary>Above 0: selected requests pass at most this many a second, queued in arrival order (a service at capacity).</summary>
    private double _capPerSecond;
    /// <summary>How long each selected request is held before it is forwarded: the service time, in parallel, below the cap.</summary>
    private TimeSpan _hold;
    private long _nextFreeTimestamp;
    private readonly Lock _pace = new();

    /// <summary>Headers every injected 503 carries besides its error code, e.g. x-ms-retry-after-ms (set before requests arrive).</summary>
    public IReadOnlyDictionary<string, string> ThrottleHeaders { get; set; } = new Dictionary<string, string>();

    /// <summary>503s injected.</summary>
    public long Injected => Count(Fault.Throttle);

    public long Count(Fault fault) => Interlocked.Read(ref _injected[(int)fault]);

    /// <summary>Every request that reached the proxy, selected or not: what the service behind it was sent.</summary>
    public long Seen => Interlocked.Read(ref _seen);

    /// <summary>Every Nth selected request (and any over maxInFlight) is throttled.</summary>
    public static Task<FaultProxy> StartAsync(Uri upstream, int everyNth, Func<HttpRequest, bool> selects, long maxInFlight = long.MaxValue) =>
        StartAsync(upstream, selects, n => n % everyNth == 0 ? Fault.Throttle : Fault.None, maxInFlight);

    /// <summary>
    /// A proxy in front of one endpoint ("TableEndpoint", "BlobEndpoint") of the Azurite <paramref name="connectionString"/>
    /// names, and a target that reaches that endpoint through it (the other endpoints directly).
    /// </summary>
    public static Task<(FaultProxy Proxy, StorageTarget Target)> InFrontOfAsync(string connectionString, string endpoint, int everyNth,
        Func<HttpRequest, bool> selects, long maxInFlight = long.MaxValue) =>
        InFrontOfAsync(connectionString, endpoint, selects, n => n % everyNth == 0 ? Fault.Throttle : Fault.None, maxInFlight);

    /// <summary>As above, with the fault of the nth selected request (from 1) given by <paramref name="schedule"/>.</summary>
    public static async Task<(FaultProxy Proxy, StorageTarget Target)> InFrontOfAsync(string connectionString, string endpoint,
        Func<HttpRequest, bool> selects, Func<long, Fault> schedule, long maxInFlight = long.MaxValue)
    {
        string direct = connectionString.Split(';').Single(p => p.StartsWith(endpoint + "=", StringComparison.Ordinal))[(endpoint.Length + 1)..];
        var proxy = await StartAsync(new Uri($"http://127.0.0.1:{new Uri(direct).Port}/"), selects, schedule, maxInFlight);
        return (proxy, StorageTarget.FromConnectionString(connectionString.Replace(direct, $"{proxy.Address.ToString().TrimEnd('/')}/devstoreaccount1")));
    }

    /// <summary>
    /// A proxy in front of the table endpoint of the Azurite <paramref name="connectionString"/> names that gives every
    /// request <paramref name="selects"/> picks the one <paramref name="fault"/> (a <see cref="Fault.Late"/> one held
    /// <paramref name="lateBy"/>), and a target reaching the table endpoint through it.
    /// </summary>
    public static async Task<(FaultProxy Proxy, StorageTarget Target)> InFrontOfTablesAsync(string connectionString, Func<HttpRequest, bool> selects, Fault fault,
        TimeSpan lateBy = default)
    {
        string direct = connectionString.Split(';').Single(p => p.StartsWith("TableEndpoint=", StringComparison.Ordinal))["TableEndpoint=".Length..];
        var proxy = await StartAsync(new Uri($"http://127.0.0.1:{new Uri(direct).Port}/"), selects, _ => fault, lateBy: lateBy);
        return (proxy, StorageTarget.FromConnectionString(connectionString.Replace(direct, $"{proxy.Address.ToString().TrimEnd('/')}/devstoreaccount1")));
    }

    /// <summary>
    /// A proxy in front of one endpoint that lets the selected requests through at most
    /// <paramref name="requestsPerSecond"/> a second, each held <paramref name="hold"/> (its service time):
    /// below the cap, throughput grows with the requests in flight (n / hold); at the cap it stays flat
    /// and the extra requests queue, as in front of a saturated service. Nothing is refused.
    /// </summary>
    public static async Task<(FaultProxy Proxy, StorageTarget Target)> CappedInFrontOfAsync(string connectionString, string endpoint,
        Func<HttpRequest, bool> selects, double requestsPerSecond, TimeSpan hold)
    {
        var (proxy, target) = await InFrontOfAsync(connectionString, endpoint, int.MaxValue, selects);
        proxy._capPerSecond = requestsPerSecond;
        proxy._hold = hold;
        return (proxy, target);
    }

    /// <summary>Waits for the request's turn under the cap (first come, first served), then its service time.</summary>
    private async Task PaceAsync(CancellationToken ct)
    {
        TimeSpan wait;
        lock (_pace)
        {
            long now = System.Diagnostics.Stopwatch.GetTimestamp();
            long slot = Math.Max(now, _nextFreeTimestamp);
            _nextFreeTimestamp = slot + (long)(System.Diagnostics.Stopwatch.Frequency / _capPerSecond);
            wait = System.Diagnostics.Stopwatch.GetElapsedTime(now, slot);
        }
        await HoldAsync(wait + _hold, ct);
    }

    /// <summary>
    /// Holds for at least <paramref name="delay"/> by the Stopwatch: Task.Delay's timer counts coarse milliseconds and may
    /// wake a little early (a 400 ms hold once measured 399.6 ms), so a test's "never below the delay" would be the proxy's error.
    /// </summary>
    public static async Task HoldAsync(TimeSpan delay, CancellationToken ct)
    {
        long start = System.Diagnostics.Stopwatch.GetTimestamp();
        await Task.Delay(delay, ct);
        for (var left = delay - System.Diagnostics.Stopwatch.GetElapsedTime(start); left > TimeSpan.Zero; left = delay - System.Diagnostics.Stopwatch.GetElapsedTime(start))
        {
            await Task.Delay(TimeSpan.FromMilliseconds(Math.Max(1, Math.Ceiling(left.TotalMilliseconds))), ct);
        }
    }

    /// <summary>
    /// A proxy in front of one endpoint that holds every request <paramref name="selects"/> picks for at least
    /// <paramref name="delay"/> before forwarding it (requests in parallel, no cap): a service that takes that long.
    /// </summary>
    public static async Task<(FaultProxy Proxy, StorageTarget Target)> DelayingInFrontOfAsync(string connectionString, string endpoint,
        Func<HttpRequest, bool> selects, TimeSpan delay)
    {
        var (proxy, target) = await InFrontOfAsync(connectionString, endpoint, int.MaxValue, selects);
        proxy._hold = delay;
        return (proxy, target);
    }

    /// <summary>
    /// Selects the requests to one table of the account ("StorageBenchSignals", "sbt…" as a prefix), optionally only
    /// one method and only rows whose key starts with <paramref name="rowKeyPrefix"/>, or only queries (no key in the path).
    /// </summary>
    public static Func<HttpRequest, bool> ToTable(string tablePrefix, string? method = null, string? rowKeyPrefix = null, bool queriesOnly = false) => r =>
    {
        string path = Uri.UnescapeDataString(r.Path.Value ?? "");
        int slash = path.IndexOf('/', 1);
        string resource = slash < 0 ? "" : path[(slash + 1)..];
        return resource.StartsWith(tablePrefix, StringComparison.Ordinal) && resource != "Tables"
            && (method is null || r.Method == method)
            && (rowKeyPrefix is null || resource.Contains($"RowKey='{rowKeyPrefix}", StringComparison.Ordinal))
            && (!queriesOnly || resource.EndsWith("()", StringComparison.Ordinal));
    };

    /// <param name="schedule">The fault for the nth selected request (from 1).</param>
    /// <param name="lateBy">How long a <see cref="Fault.Late"/> request is held.</param>
    public static async Task<FaultProxy> StartAsync(Uri upstream, Func<HttpRequest, bool> selects, Func<long, Fault> schedule, long maxInFlight = long.MaxValue,
        TimeSpan lateBy = default)
    {
        var proxy = new FaultProxy { LateBy = lateBy };
        proxy._server = await LoopbackServer.StartAsync(0, app => app.Run(context => proxy.HandleAsync(context, upstream, selects, schedule, maxInFlight)));
        return proxy;
    }

    private async Task HandleAsync(HttpContext context, Uri upstream, Func<HttpRequest, bool> selects, Func<long, Fault> schedule, long maxInFlight)
    {
        Interlocked.Increment(ref _seen);
        if (!selects(context.Request))
        {
            await ForwardAsync(context, upstream);
            return;
        }
        long inFlight = Interlocked.Increment(ref _inFlight);
        try
        {
            var fault = inFlight > maxInFlight ? Fault.Throttle : schedule(Interlocked.Increment(ref _selected));
            Interlocked.Increment(ref _injected[(int)fault]);
            switch (fault)
            {
                case Fault.Throttle:
                    await ThrottleAsync(context);
                    return;
                case Fault.Hang:
                    await Task.Delay(Timeout.Infinite, context.RequestAborted).ContinueWith(_ => { }, TaskScheduler.Default);
                    return;
                case Fault.Drop:
                    // After the response has started, so no client can quietly send the request again.
                    context.Response.StatusCode = 200;
                    await context.Response.StartAsync();
                    await context.Response.Body.FlushAsync();
                    context.Abort();
                    return;
                case Fault.NotFound:
                    await NotFoundAsync(context);
                    return;
                case Fault.Slow:
                    await HoldAsync(SlowDelay, context.RequestAborted);
                    break;
                case Fault.Late:
                    // A client that gave up first aborts the request: then it is never forwarded.
                    await HoldAsync(LateBy, context.RequestAborted);
                    break;
            }
            if (_capPerSecond > 0)
            {
                await PaceAsync(context.RequestAborted);
            }
            else if (_hold > TimeSpan.Zero)
            {
                await HoldAsync(_hold, context.RequestAborted);
            }
            await ForwardAsync(context, upstream);
        }
        finally
        {
            Interlocked.Decrement(ref _inFlight);
        }
    }

    /// <summary>503 ServerBusy in the service's own error format: JSON for the table service (it asks for JSON), XML for blobs.</summary>
    private async Task ThrottleAsync(HttpContext context)
    {
        context.Response.StatusCode = 503;
        context.Response.Headers["x-ms-error-code"] = "ServerBusy";
        foreach (var (name, value) in ThrottleHeaders)
        {
            context.Response.Headers[name] = value;
        }
        if (context.Request.Headers.Accept.ToString().Contains("json", StringComparison.OrdinalIgnoreCase))
        {
            context.Response.ContentType = "application/json";
            await context.Response.WriteAsync("""{"odata.error":{"code":"ServerBusy","message":{"lang":"en-US","value":"Injected by the test proxy."}}}""");
        }
        else
        {
            context.Response.ContentType = "application/xml";
            await context.Response.WriteAsync("""<?xml version="1.0" encoding="utf-8"?><Error><Code>ServerBusy</Code><Message>Injected by the test proxy.</Message></Error>""");
        }
    }

    /// <summary>404 as the service answers a read of something that is not there: the error code in a header, the body for GET only.</summary>
    private static async Task NotFoundAsync(HttpContext context)
    {
        bool blob = !context.Request.Headers.Accept.ToString().Contains("json", StringComparison.OrdinalIgnoreCase);
        context.Response.StatusCode = 404;
        context.Response.Headers["x-ms-error-code"] = blob ? "BlobNotFound" : "ResourceNotFound";
        if (HttpMethods.IsHead(context.Request.Method))
        {
            return;
        }
        context.Response.ContentType = "application/xml";
        await context.Response.WriteAsync("""<?xml version="1.0" encoding="utf-8"?><Error><Code>BlobNotFound</Code><Message>The specified blob does not exist.</Message></Error>""");
    }

    private async Task ForwardAsync(HttpContext context, Uri upstream)
    {
        var request = new HttpRequestMessage(new HttpMethod(context.Request.Method),
            new Uri(upstream, context.Request.Path.Value + context.Request.QueryString.Value));
        if (context.Request.ContentLength > 0 || context.Request.Headers.TransferEncoding.Count > 0)
        {
            request.Content = new StreamContent(context.Request.Body);
        }
        foreach (var (name, values) in context.Request.Headers)
        {
            if (HopHeaders.Contains(name))
            {
                continue;
            }
            if (!request.Headers.TryAddWithoutValidation(name, values.ToArray()))
            {
                request.Content?.Headers.TryAddWithoutValidation(name, values.ToArray());
            }
        }
        using var response = await _upstream.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, context.RequestAborted);
        context.Response.StatusCode = (int)response.StatusCode;
        foreach (var (name, values) in response.Headers.Concat(response.Content.Headers))
        {
            if (!HopHeaders.Contains(name))
            {
                context.Response.Headers[name] = values.ToArray();
            }
        }
        await response.Content.CopyToAsync(context.Response.Body, context.RequestAborted);
    }

    public async ValueTask DisposeAsync()
    {
        await _server!.DisposeAsync();
        _upstream.Dispose();
    }
}
