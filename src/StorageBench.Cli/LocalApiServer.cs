using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.WebUtilities;
using StorageBench.Orchestration.Dashboard;

namespace StorageBench.Cli;

/// <summary>
/// The runs API (POST /api/runs, GET /api/runs/{id}, POST /api/runs/{id}/cancel, GET /api/runs, GET /api/runs/{id}/report,
/// GET /api/compare) and the dashboard page at / on loopback, for a machine without Azure Functions Core Tools. Loopback only and without function keys:
/// it is a local tool, not a service, and it answers only its own origin (<see cref="OwnOriginOnly"/>).
/// </summary>
public static class LocalApiServer
{
    public static Task<LoopbackServer> StartAsync(RunsApi api, int port, CancellationToken ct) =>
        LoopbackServer.StartAsync(port, app =>
        {
            app.Use(OneErrorShape);
            app.Use(OwnOriginOnly.Guard);
            app.MapPost("/api/runs", async (HttpRequest request, CancellationToken rct) =>
            {
                // Kestrel's own limit (30 MB) would cut the connection before the API could answer 413 in its shape.
                request.HttpContext.Features.Get<Microsoft.AspNetCore.Http.Features.IHttpMaxRequestBodySizeFeature>()!.MaxRequestBodySize = RunsApi.DrainBytes + 1;
                var (body, refused) = await RunsApi.ReadBodyAsync(request.Body, request.ContentLength, request.ContentType, rct);
                return Send(refused ?? await api.StartAsync(body!, new Uri($"{request.Scheme}://{request.Host}/"), request.Query["id"].FirstOrDefault(), rct));
            });
            app.MapGet("/api/runs", async (HttpRequest request, CancellationToken rct) =>
                Send(await api.ListAsync(request.Query["scenario"].FirstOrDefault(), request.Query["last"].FirstOrDefault(), rct)));
            app.MapGet("/api/runs/{id}", async (HttpRequest request, string id, CancellationToken rct) =>
                Send(await api.GetAsync(id, rct, new RunLinks(new Uri($"{request.Scheme}://{request.Host}/")))));
            app.MapPost("/api/runs/{id}/cancel", async (string id, CancellationToken rct) => Send(await api.CancelAsync(id, rct)));
            app.MapGet("/api/runs/{id}/report", async (string id, CancellationToken rct) => Send(await api.ReportAsync(id, rct)));
            app.MapGet("/api/compare", async (HttpRequest request, CancellationToken rct) =>
                Send(await api.CompareAsync(request.Query["baseline"].FirstOrDefault(), request.Query["candidate"].FirstOrDefault(), rct,
                    request.Query["judgeDifferentSpecs"].FirstOrDefault())));
            app.MapGet("/", () => Send(DashboardPage.Response()));
        }, ct);

    private static IResult Send(ApiResponse response) => new JsonResult(response);

    /// <summary>
    /// What the framework answers by itself (an unknown route, a wrong method, Kestrel's own body limit) and any
    /// failure the API did not turn into an answer get the API's one error shape too, never an empty body.
    /// </summary>
    private static async Task OneErrorShape(HttpContext context, RequestDelegate next)
    {
        try
        {
            await next(context);
        }
        catch (BadHttpRequestException ex) when (!context.Response.HasStarted)
        {
            await new JsonResult(ex.StatusCode == StatusCodes.Status413PayloadTooLarge ? RunsApi.TooLarge() : ApiResponse.Error(ex.StatusCode, $"bad request: {ex.Message}"))
                .ExecuteAsync(context);
            return;
        }
        catch (Exception ex) when (!context.Response.HasStarted && !context.RequestAborted.IsCancellationRequested)
        {
            await new JsonResult(ApiResponse.Unexpected(ex)).ExecuteAsync(context);
            return;
        }
        if (context.Response.StatusCode >= 400 && !context.Response.HasStarted)
        {
            await new JsonResult(ApiResponse.Error(context.Response.StatusCode,
                $"{context.Request.Method} {context.Request.Path} is not part of the runs API ({ReasonPhrases.GetReasonPhrase(context.Response.StatusCode)}): " +
                "POST /api/runs, GET /api/runs/{id}, POST /api/runs/{id}/cancel, GET /api/runs, GET /api/runs/{id}/report, GET /api/compare; the dashboard is at /")).ExecuteAsync(context);
        }
    }

    /// <summary>The response's status, headers (Location, Retry-After) and JSON body.</summary>
    private sealed class JsonResult(ApiResponse response) : IResult
    {
        public async Task ExecuteAsync(HttpContext context)
        {
            context.Response.StatusCode = response.StatusCode;
            foreach (var (name, value) in response.Headers)
            {
                context.Response.Headers[name] = value;
            }
            var (content, type) = response.Content;
            context.Response.ContentType = type;
            await context.Response.WriteAsync(content, context.RequestAborted);
        }
    }
}
