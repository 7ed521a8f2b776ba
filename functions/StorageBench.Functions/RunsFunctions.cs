using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Azure.Functions.Worker;
using Microsoft.DurableTask.Client;
using Microsoft.Extensions.Logging;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Planning;
using StorageBench.Engine.ResultsStore;
using StorageBench.Orchestration;
using StorageBench.Orchestration.Dashboard;

namespace StorageBench.Functions;

/// <summary>The runs API (contract and tests: RunsApi). Each function forwards one request to it.</summary>
/// <param name="loggers">From the worker's DI: what the API logs (a call answered 500, a preflight refusal) reaches Application Insights.</param>
public sealed class RunsFunctions(ResultsTableStore results, TargetCleaner cleaner, TimeProvider time, PriceTable prices, ILoggerFactory loggers)
{
    private readonly ILogger _log = loggers.CreateLogger<RunsApi>();

    [Function("StartRun")]
    public async Task<IActionResult> StartRun(
        [HttpTrigger(AuthorizationLevel.Function, "post", Route = "runs")] HttpRequest req,
        [DurableClient] DurableTaskClient client, FunctionContext context)
    {
        var (spec, refused) = await RunsApi.ReadBodyAsync(req.Body, req.ContentLength, req.ContentType, context.CancellationToken).ConfigureAwait(false);
        // Only the API's own links: Durable's management URLs carry its system key, which terminates, purges or raises events
        // on every instance (and skips a run's cleanup), so they are not handed to whoever holds a function key.
        var reply = refused ?? await RunsApi.AnsweredAsync(() => Api(client).StartAsync(spec!, new RunLinks(PublicBase(req), CallerKey(req)), Query(req, "id"), context.CancellationToken), context.CancellationToken, _log).ConfigureAwait(false);
        return Reply(req, reply);
    }

    [Function("GetRun")]
    public async Task<IActionResult> GetRun(
        [HttpTrigger(AuthorizationLevel.Function, "get", Route = "runs/{id}")] HttpRequest req, string id,
        [DurableClient] DurableTaskClient client, FunctionContext context) =>
        Reply(req, await RunsApi.AnsweredAsync(() => Api(client).GetAsync(id, context.CancellationToken, new RunLinks(PublicBase(req), CallerKey(req))), context.CancellationToken, _log)
            .ConfigureAwait(false));

    [Function("ListRuns")]
    public async Task<IActionResult> ListRuns(
        [HttpTrigger(AuthorizationLevel.Function, "get", Route = "runs")] HttpRequest req,
        [DurableClient] DurableTaskClient client, FunctionContext context) =>
        Reply(req, await RunsApi.AnsweredAsync(() => Api(client).ListAsync(Query(req, "scenario"), Query(req, "last"), context.CancellationToken), context.CancellationToken, _log).ConfigureAwait(false));

    /// <summary>Signals the run, waits for it to stop, and past RunsApi.CancelGrace terminates it and cleans up.</summary>
    [Function("CancelRun")]
    public async Task<IActionResult> CancelRun(
        [HttpTrigger(AuthorizationLevel.Function, "post", Route = "runs/{id}/cancel")] HttpRequest req, string id,
        [DurableClient] DurableTaskClient client, FunctionContext context) =>
        Reply(req, await RunsApi.AnsweredAsync(() => Api(client).CancelAsync(id, context.CancellationToken), context.CancellationToken, _log).ConfigureAwait(false));

    /// <summary>A finished run's summary.html.</summary>
    [Function("RunReport")]
    public async Task<IActionResult> RunReport(
        [HttpTrigger(AuthorizationLevel.Function, "get", Route = "runs/{id}/report")] HttpRequest req, string id,
        [DurableClient] DurableTaskClient client, FunctionContext context) =>
        Reply(req, await RunsApi.AnsweredAsync(() => Api(client).ReportAsync(id, context.CancellationToken), context.CancellationToken, _log).ConfigureAwait(false));

    /// <summary>Two stored runs against their noise, as storagebench compare judges them.</summary>
    [Function("CompareRuns")]
    public async Task<IActionResult> CompareRuns(
        [HttpTrigger(AuthorizationLevel.Function, "get", Route = "compare")] HttpRequest req,
        [DurableClient] DurableTaskClient client, FunctionContext context) =>
        Reply(req, await RunsApi.AnsweredAsync(() => Api(client).CompareAsync(Query(req, "baseline"), Query(req, "candidate"), context.CancellationToken, Query(req, "judgeDifferentSpecs")), context.CancellationToken, _log).ConfigureAwait(false));

    /// <summary>
    /// The dashboard page (the one storagebench serve shows at /), at /api/dashboard. Open it with ?code=KEY (a host key):
    /// the page passes the key on to every runs API call it makes.
    /// </summary>
    [Function("Dashboard")]
    public static IActionResult Dashboard([HttpTrigger(AuthorizationLevel.Function, "get", Route = "dashboard")] HttpRequest req) =>
        Reply(req, DashboardPage.Response());

    private RunsApi Api(DurableTaskClient client) => new(new DurableRunClient(client), results, cleaner, time, "http", prices, loggers) { Memory = InstanceMemory };

    /// <summary>
    /// An instance's memory budget: half of its memory (WEBSITE_MEMORY_LIMIT_MB, else what the runtime sees), for the slices
    /// one instance runs at once: host.json's maxConcurrentActivityFunctions.
    /// </summary>
    public static MemoryBudget InstanceMemory => MemoryBudget.OfThisProcess(Environment.GetEnvironmentVariable, slicesPerProcess: 32);

    /// <summary>
    /// The function key the caller sent, read as the host reads it (the x-functions-key header before ?code=): the links
    /// StartRun returns carry it, so they work as returned. Never logged.
    /// </summary>
    public static string? CallerKey(HttpRequest req) =>
        req.Headers["x-functions-key"].FirstOrDefault() is { Length: > 0 } header ? header : Query(req, RunLinks.KeyQuery) is { Length: > 0 } key ? key : null;

    /// <summary>A query parameter as given, an empty value as empty (as serve passes it): RunsApi alone judges it (`?last=` is a 400 in both).</summary>
    private static string? Query(HttpRequest req, string name) => req.Query[name].FirstOrDefault();

    /// <summary>The URL clients used: behind the Functions front end the request arrives proxied, so forwarded headers win.</summary>
    private static Uri PublicBase(HttpRequest req) =>
        new($"{req.Headers["X-Forwarded-Proto"].FirstOrDefault() ?? req.Scheme}://{req.Headers["X-Forwarded-Host"].FirstOrDefault() ?? req.Host.ToUriComponent()}/");

    private static ContentResult Reply(HttpRequest req, ApiResponse reply)
    {
        foreach (var (name, value) in reply.Headers)
        {
            req.HttpContext.Response.Headers[name] = value;
        }
        var (content, type) = reply.Content;
        return new ContentResult { StatusCode = reply.StatusCode, Content = content, ContentType = type };
    }
}
