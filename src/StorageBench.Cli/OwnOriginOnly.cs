using Microsoft.AspNetCore.Http;

namespace StorageBench.Cli;

/// <summary>
/// `storagebench serve` answers only itself: it holds the keys of real accounts, and any page the user visits can make the
/// browser send requests to 127.0.0.1. Refused, in the API's one error shape, before any route runs:
/// <list type="bullet">
/// <item>a Host other than 127.0.0.1 or localhost at the port the request came in on (403): DNS rebinding, a name of the
/// attacker's that now resolves to 127.0.0.1, makes the browser treat serve as the attacker's own site;</item>
/// <item>an Origin other than that same address (403): a cross-site fetch or form, or an opaque "null" one;</item>
/// <item>a POST whose Content-Type is not JSON's (415, <see cref="RunsApi.ContentTypeError"/>): what a browser sends
/// cross-site without asking first.</item>
/// </list>
/// Clients other than browsers (curl, HttpClient) send the Host they connected to and no Origin, so they are served as before.
/// </summary>
public static class OwnOriginOnly
{
    public static async Task Guard(HttpContext context, RequestDelegate next)
    {
        var request = context.Request;
        if (Refusal(request.Host.Value, request.Headers.Origin.FirstOrDefault(), request.Method, request.ContentType, context.Connection.LocalPort) is { } refused)
        {
            context.Response.StatusCode = refused.StatusCode;
            var (content, type) = refused.Content;
            context.Response.ContentType = type;
            await context.Response.WriteAsync(content, context.RequestAborted).ConfigureAwait(false);
            return;
        }
        await next(context).ConfigureAwait(false);
    }

    /// <summary>Why a request to the server listening on <paramref name="port"/> is refused, or null when it is its own.</summary>
    public static ApiResponse? Refusal(string? host, string? origin, string method, string? contentType, int port)
    {
        string[] own = [$"127.0.0.1:{port}", $"localhost:{port}"];
        string allowed = $"127.0.0.1:{port} or localhost:{port}";
        if (host is null || !own.Contains(host, StringComparer.OrdinalIgnoreCase))
        {
            return ApiResponse.FieldError(403, "; nothing was done", new ValidationError("Host", $"\"{host}\"",
                $"is not this server's: storagebench serve answers only requests to {allowed} (another name that resolves here is refused, against DNS rebinding)"));
        }
        if (origin is not null && !own.Any(o => string.Equals(origin, "http://" + o, StringComparison.OrdinalIgnoreCase)))
        {
            return ApiResponse.FieldError(403, "; nothing was done", new ValidationError("Origin", $"\"{origin}\"",
                $"is another site: storagebench serve answers only its own page (http://{allowed}) and clients that send no Origin"));
        }
        return HttpMethods.IsPost(method) ? RunsApi.RefusedContentType(contentType) : null;
    }
}
