using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using StorageBench.Cli;

namespace StorageBench.Tests;

/// <summary>
/// A loopback reverse proxy in front of Azurite that answers 503 ServerBusy — as Azure Storage does
/// when it throttles — to every Nth request the predicate selects, or to any selected request that
/// would put more than maxInFlight selected requests in flight (a service at capacity), and forwards
/// everything else.
/// Azure's real throttling cannot happen on this machine; this is the stand-in, and it counts exactly
/// what it injected.
/// </summary>
public sealed class ThrottlingProxy : IAsyncDisposable
{
    private static readonly HashSet<string> HopHeaders = new(StringComparer.OrdinalIgnoreCase) { "Host", "Connection", "Transfer-Encoding", "Keep-Alive", "Expect" };
    private readonly HttpClient _upstream = new(new SocketsHttpHandler { AllowAutoRedirect = false, UseCookies = false });
    private long _selected;
    private long _injected;
    private long _inFlight;

    private LoopbackServer? _server;

    public Uri Address => _server!.Address;

    public long Injected => Interlocked.Read(ref _injected);

    public static async Task<ThrottlingProxy> StartAsync(Uri upstream, int everyNth, Func<HttpRequest, bool> selects, long maxInFlight = long.MaxValue)
    {
        var proxy = new ThrottlingProxy();
        proxy._server = await LoopbackServer.StartAsync(0, app => app.Run(context => proxy.HandleAsync(context, upstream, everyNth, selects, maxInFlight)));
        return proxy;
    }

    private async Task HandleAsync(HttpContext context, Uri upstream, int everyNth, Func<HttpRequest, bool> selects, long maxInFlight)
    {
        if (!selects(context.Request))
        {
            await ForwardAsync(context, upstream);
            return;
        }
        long inFlight = Interlocked.Increment(ref _inFlight);
        try
        {
            if (Interlocked.Increment(ref _selected) % everyNth == 0 || inFlight > maxInFlight)
            {
                await ThrottleAsync(context);
                return;
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
        Interlocked.Increment(ref _injected);
        context.Response.StatusCode = 503;
        context.Response.Headers["x-ms-error-code"] = "ServerBusy";
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
