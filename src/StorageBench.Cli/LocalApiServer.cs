using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using StorageBench.Orchestration;

namespace StorageBench.Cli;

/// <summary>
/// The runs API (POST /api/runs, GET /api/runs/{id}, POST /api/runs/{id}/cancel, GET /api/runs) on
/// loopback, for a machine without Azure Functions Core Tools. Loopback only and without function keys:
/// it is a local tool, not a service.
/// </summary>
public static class LocalApiServer
{
    public static Task<LoopbackServer> StartAsync(RunsApi api, int port, CancellationToken ct) =>
        LoopbackServer.StartAsync(port, app =>
        {
            app.MapPost("/api/runs", async (HttpRequest request, CancellationToken rct) =>
            {
                using var reader = new StreamReader(request.Body);
                string body = await reader.ReadToEndAsync(rct);
                return Send(await api.StartAsync(body, new Uri($"{request.Scheme}://{request.Host}/"), request.Query["id"].FirstOrDefault(), rct));
            });
            app.MapGet("/api/runs", async (HttpRequest request, CancellationToken rct) =>
                Send(await api.ListAsync(request.Query["scenario"].FirstOrDefault(), request.Query["last"].FirstOrDefault(), rct)));
            app.MapGet("/api/runs/{id}", async (string id, CancellationToken rct) => Send(await api.GetAsync(id, rct)));
            app.MapPost("/api/runs/{id}/cancel", async (string id, CancellationToken rct) => Send(await api.CancelAsync(id, rct)));
        }, ct);

    private static IResult Send(ApiResponse response) => new JsonResult(response);

    /// <summary>The response's status, Location header and JSON body.</summary>
    private sealed class JsonResult(ApiResponse response) : IResult
    {
        public async Task ExecuteAsync(HttpContext context)
        {
            context.Response.StatusCode = response.StatusCode;
            if (response.Location is { } location)
            {
                context.Response.Headers.Location = location;
            }
            context.Response.ContentType = "application/json";
            await context.Response.WriteAsync(response.Json, context.RequestAborted);
        }
    }
}
