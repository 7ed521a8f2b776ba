using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using StorageBench.Orchestration;

namespace StorageBench.Cli;

/// <summary>
/// The runs API (POST /api/runs, GET /api/runs/{id}) on loopback, for a machine without Azure
/// Functions Core Tools. Loopback only and without function keys: it is a local tool, not a service.
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
                return Send(await api.StartAsync(body, new Uri($"{request.Scheme}://{request.Host}/"), rct));
            });
            app.MapGet("/api/runs/{id}", async (string id, CancellationToken rct) => Send(await api.GetAsync(id, rct)));
        }, ct);

    private static IResult Send(ApiResponse response) => Microsoft.AspNetCore.Http.Results.Content(response.Json, "application/json", statusCode: response.StatusCode);
}
