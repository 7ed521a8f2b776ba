using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;
using StorageBench.Engine;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Preflight;
using StorageBench.Engine.Reports;

namespace StorageBench.Orchestration;

/// <summary>
/// The HTTP contract of the runs API, independent of the host: the Function App's HTTP triggers and
/// the local `storagebench serve` both forward to it.
/// <list type="bullet">
/// <item>POST /api/runs[?id=ID] with a run spec → 202 {id, statusQueryGetUri, cancelPostUri, reportGetUri} and Location (<see cref="RunLinks"/>:
/// with the caller's function key in a Function App); 400 with nothing started (a rejected
/// spec, or an account that refused the preflight's request, or a body that is not UTF-8); 503 when an account did not answer it; 409 when the id exists;
/// 413 for a body over 1 MiB; 415 for a Content-Type that is not a spec's (<see cref="ContentTypeError"/>).</item>
/// <item>Every 4xx/5xx has one shape: {status, message, errors:[{field, value, rule, message}]} (<see cref="ApiResponse.Error"/>).</item>
/// <item>A run id in a route that breaks <see cref="Planner.RunIdRule"/> → 400 naming it and the rule, before anything is looked up.</item>
/// <item>Every 202 carries Retry-After (<see cref="ApiResponse.RetryAfterSeconds"/>), as Azure's long-running operations do.</item>
/// <item>GET /api/runs/{id} → 404 unknown; 202 while pending or running (with progress, and Location: the status link); 200 with the summary as result when done.
/// Its status is the run's (<see cref="RunStatus"/>); the orchestration's runtime status is the separate orchestrationStatus.</item>
/// <item>GET /api/runs?scenario=S&amp;last=N → 200 {runs:[…]}: the runs this server started that are still going, then the results table's, newest first; 400 for a last that is not 1 to 1000
/// (an empty one too). Hosts pass each query parameter as given, an empty value as empty: the API alone judges it.</item>
/// <item>POST /api/runs/{id}/cancel → 404 unknown; 409 already ended; 200 with the Canceled summary once it stopped.</item>
/// <item>GET /api/runs/{id}/report → 200 the finished run's summary.html (text/html); 404 unknown; 409 while it runs.</item>
/// <item>GET /api/compare?baseline=ID&amp;candidate=ID[&amp;judgeDifferentSpecs=true] → 200 {verdict, header, rows, notes (Markdown)} as storagebench compare judges them; 400 a bad id; 404 a run not stored.</item>
/// </list>
/// </summary>
/// <param name="prices">Prices the cost estimate of every result (default: the built-in table).</param>
/// <param name="loggers">Where preflight refusals and skipped progress reads are logged; none when not given.</param>
public sealed partial class RunsApi(IRunOrchestrationClient client, ResultsTableStore results, TargetCleaner cleaner, TimeProvider time, string host,
    PriceTable? prices = null, ILoggerFactory? loggers = null)
{
    private readonly ILogger _logger = (loggers ?? NullLoggerFactory.Instance).CreateLogger<RunsApi>();
    private readonly System.Collections.Concurrent.ConcurrentDictionary<string, bool> _started = new(StringComparer.Ordinal);

    /// <summary>The driver's memory budget a started run must fit (null: this process's, every slice on it, as `serve` runs them).</summary>
    public MemoryBudget? Memory { get; init; }

    /// <summary>How long a canceled run gets to stop by itself before it is terminated and cleaned up from outside.</summary>
    public TimeSpan CancelGrace { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// The call's answer, or a 500 in the one error shape when it failed with an exception (not when the request was aborted);
    /// the exception is logged whole, as the answer carries only its type and compacted message.
    /// </summary>
    public static async Task<ApiResponse> AnsweredAsync(Func<Task<ApiResponse>> call, CancellationToken ct, ILogger? logger = null)
    {
        try
        {
            return await call().ConfigureAwait(false);
        }
        catch (Exception ex) when (!ct.IsCancellationRequested)
        {
            logger?.ApiCallFailed(ex);
            return ApiResponse.Unexpected(ex);
        }
    }

    /// <summary>Starts a run; its links are under <paramref name="baseUri"/>, without a key (`serve`).</summary>
    public Task<ApiResponse> StartAsync(string body, Uri baseUri, string? instanceId, CancellationToken ct) =>
        StartAsync(body, new RunLinks(baseUri), instanceId, ct);

    /// <summary>Starts a run; its links are made by <paramref name="links"/> (the Function App's carry the caller's key).</summary>
    public async Task<ApiResponse> StartAsync(string body, RunLinks links, string? instanceId, CancellationToken ct)
    {
        // Before a run is accepted, every account it would use must answer and accept the credentials.
        var starter = new RunStarter(client, time) { Preflight = new StoragePreflight(cleaner.Targets, results.Target, _logger), Memory = Memory ?? MemoryBudget.OfThisProcess(Environment.GetEnvironmentVariable) };
        var started = await starter.StartAsync(body, host, instanceId, ct).ConfigureAwait(false);
        if (started.AlreadyExisted)
        {
            return ApiResponse.Error(409, $"a run with id \"{started.RunId}\" already exists; nothing was started",
                [new ValidationError("id", $"\"{started.RunId}\"", "is the id of a run that already exists; give another id or none")]);
        }
        if (started.Refused is { } refused)
        {
            return ApiResponse.Error(refused.Refused ? 400 : 503, refused.Message);
        }
        if (!started.Started)
        {
            return ApiResponse.Error(400, "the run spec was rejected; nothing was started: " + string.Join("; ", started.Errors), started.Errors);
        }
        _started[started.RunId!] = true;
        string status = links.Status(started.RunId!);
        var accepted = new JsonObject
        {
            ["id"] = started.RunId,
            ["statusQueryGetUri"] = status,
            ["cancelPostUri"] = links.Cancel(started.RunId!),
            ["reportGetUri"] = links.Report(started.RunId!),
        };
        if (RunSpecParser.UnusedCounts(body) is { Count: > 0 } notes)
        {
            // A count the timed run does not use, said rather than ignored (the CLI says it on stderr).
            accepted["notes"] = new JsonArray([.. notes.Select(n => JsonValue.Create(n))]);
        }
        return new ApiResponse(202, accepted, status);
    }

    /// <summary>
    /// The run: <c>status</c> is the run's status (<see cref="RunStatus"/>: Pending, Running, then Completed, Failed, Canceled or
    /// Invalid), the one word the CLI and the dashboard show too; <c>orchestrationStatus</c> is the orchestration's runtime status,
    /// kept apart because it says Completed for a run that was canceled or failed (the orchestration itself ended normally).
    /// Progress is there while the run goes; once it ended, the result holds its figures.
    /// </summary>
    /// <param name="links">Where the host answers: a 202 names the status URL again in Location, as Durable's status endpoint does.</param>
    public async Task<ApiResponse> GetAsync(string id, CancellationToken ct, RunLinks? links = null)
    {
        if (BadRunId(id) is { } bad)
        {
            return bad;
        }
        var state = await client.GetStateAsync(id, ct).ConfigureAwait(false);
        if (state is null)
        {
            return NotFound(id);
        }
        bool done = RuntimeStatus.IsDone(state.RuntimeStatus);
        var summary = done ? await RunResults.LoadAsync(client, results, id, ct, prices).ConfigureAwait(false) : null;
        var body = new JsonObject
        {
            ["id"] = state.InstanceId,
            ["status"] = await StatusOfAsync(state, summary, ct).ConfigureAwait(false),
            ["orchestrationStatus"] = state.RuntimeStatus,
            ["createdUtc"] = state.CreatedUtc,
            ["lastUpdatedUtc"] = state.LastUpdatedUtc,
            ["progress"] = !done && await RunProgressReader.CurrentAsync(client, results, state, time.GetUtcNow().UtcDateTime, ct, _logger).ConfigureAwait(false) is { } progress
                ? JsonSerializer.SerializeToNode(progress, JsonDefaults.Options)
                : null,
        };
        if (state.FailureMessage is not null)
        {
            body["failure"] = state.FailureMessage;
        }
        if (summary is not null)
        {
            body["result"] = JsonSerializer.SerializeToNode(summary, JsonDefaults.Options);
        }
        return new ApiResponse(done ? 200 : 202, body, done ? null : links?.Status(id));
    }

    /// <summary>
    /// The run's status (<see cref="RunStatus"/>), never the orchestration's: its summary's once it ended; Failed for an
    /// orchestration that failed, or was terminated with no cancel asked; Canceled for one terminated after a cancel.
    /// </summary>
    private async Task<string> StatusOfAsync(OrchestrationState state, RunSummary? summary, CancellationToken ct) => state.RuntimeStatus switch
    {
        RuntimeStatus.Pending => RunStatus.Pending,
        RuntimeStatus.Running => RunStatus.Running,
        _ when summary is not null => summary.Status,
        RuntimeStatus.Terminated when await results.IsCancelRequestedAsync(state.InstanceId, ct).ConfigureAwait(false) => RunStatus.Canceled,
        _ => RunStatus.Failed,
    };

    /// <summary>The newest stored runs (run and step rows), optionally of one scenario.</summary>
    public async Task<ApiResponse> ListAsync(string? scenario, string? last, CancellationToken ct)
    {
        int max = 20;
        if (last is not null && (!int.TryParse(last, NumberStyles.None, CultureInfo.InvariantCulture, out max) || max is < 1 or > 1000))
        {
            return ApiResponse.FieldError(400, "", new ValidationError("last", $"\"{last}\"", "must be a whole number from 1 to 1000"));
        }
        var rows = await results.QueryRunsAsync(new RunFilter(string.IsNullOrEmpty(scenario) ? null : scenario), max, ct).ConfigureAwait(false);
        // Runs still going have no row yet: those this server started (from the page, curl or any caller) come first, as they are now.
        var live = new List<JsonNode>();
        foreach (string id in _started.Keys.Where(id => !rows.Any(r => r.GetString(ResultsColumns.RunId) == id)))
        {
            if (await client.GetStateAsync(id, ct).ConfigureAwait(false) is { } state && !RuntimeStatus.IsDone(state.RuntimeStatus)
                && state.InputJson is { } input && JsonSerializer.Deserialize<RunRequest>(input, JsonDefaults.Options)?.Spec.Scenario is { } name
                && (string.IsNullOrEmpty(scenario) || name == scenario))
            {
                live.Add(new JsonObject { ["scenario"] = name, ["runId"] = id, ["status"] = await StatusOfAsync(state, null, ct).ConfigureAwait(false), ["startedUtc"] = state.CreatedUtc });
            }
        }
        return new ApiResponse(200, new JsonObject { ["runs"] = new JsonArray([.. live, .. rows.Select(RowJson)]) });
    }

    /// <summary>
    /// Asks the run to stop: its slices see the request within about a second, stop sending, and the
    /// orchestration verifies what they wrote, deletes the step's table and container and stores the run as
    /// Canceled with the figures it has. A run that does not stop within <see cref="CancelGrace"/> is
    /// terminated, its tables and containers are deleted from here, and a Canceled row is stored for it.
    /// </summary>
    public async Task<ApiResponse> CancelAsync(string id, CancellationToken ct)
    {
        if (BadRunId(id) is { } bad)
        {
            return bad;
        }
        var state = await client.GetStateAsync(id, ct).ConfigureAwait(false);
        if (state is null)
        {
            return NotFound(id);
        }
        if (RuntimeStatus.IsDone(state.RuntimeStatus))
        {
            var ended = await RunResults.LoadAsync(client, null, id, ct).ConfigureAwait(false);
            return ApiResponse.Error(409, $"run \"{id}\" already ended ({await StatusOfAsync(state, ended, ct).ConfigureAwait(false)}); nothing to cancel");
        }
        await results.RequestCancelAsync(id, ct).ConfigureAwait(false);
        var deadline = time.GetUtcNow() + CancelGrace;
        while (!RuntimeStatus.IsDone(state!.RuntimeStatus) && time.GetUtcNow() < deadline)
        {
            await Task.Delay(TimeSpan.FromMilliseconds(250), time, ct).ConfigureAwait(false);
            state = await client.GetStateAsync(id, ct).ConfigureAwait(false);
        }
        if (!RuntimeStatus.IsDone(state.RuntimeStatus))
        {
            await client.TerminateAsync(id, $"canceled, and did not stop within {CancelGrace.TotalSeconds:0} s", ct).ConfigureAwait(false);
            await cleaner.DeleteAsync(await cleaner.OfRunAsync(id, ct).ConfigureAwait(false), ct).ConfigureAwait(false);
            if (state.InputJson is { } input && JsonSerializer.Deserialize<RunRequest>(input, JsonDefaults.Options) is { } request)
            {
                await results.SaveRunAsync(new RunSummary
                {
                    RunId = id, Status = RunStatus.Canceled, StartedUtc = state.CreatedUtc, EndedUtc = time.GetUtcNow().UtcDateTime, Spec = request.Spec,
                    Environment = new RunEnvironment("", 0, request.Host, "", "", 0), Errors = [$"terminated: it did not stop within {CancelGrace.TotalSeconds:0} s of the cancel request"],
                }, ct).ConfigureAwait(false);
            }
        }
        return await GetAsync(id, ct).ConfigureAwait(false);
    }

    /// <summary>
    /// Before a local server stops: every run it started that has not ended is canceled as <see cref="CancelAsync"/> does (all
    /// at once), so none is left running without a worker. Says which on <paramref name="log"/>.
    /// </summary>
    public async Task CancelStartedAsync(TextWriter log, CancellationToken ct)
    {
        var running = new List<string>();
        foreach (string id in _started.Keys)
        {
            if (await client.GetStateAsync(id, ct).ConfigureAwait(false) is { } state && !RuntimeStatus.IsDone(state.RuntimeStatus))
            {
                running.Add(id);
            }
        }
        if (running.Count > 0)
        {
            await log.WriteLineAsync($"Canceling {running.Count} run(s) this server started and waiting for them to end: {string.Join(", ", running)}").ConfigureAwait(false);
            await Task.WhenAll(running.Select(id => CancelAsync(id, ct))).ConfigureAwait(false);
        }
    }

    /// <summary>The finished run's report: the summary.html that storagebench run writes, charts and all.</summary>
    public async Task<ApiResponse> ReportAsync(string id, CancellationToken ct)
    {
        if (BadRunId(id) is { } bad)
        {
            return bad;
        }
        var state = await client.GetStateAsync(id, ct).ConfigureAwait(false);
        if (state is null)
        {
            // A run the list shows (its row is in the results table) that ran elsewhere: `storagebench run` on a hub of its own, deleted after it.
            return await results.LoadRunFiguresAsync(id, ct).ConfigureAwait(false) is null ? NotFound(id) : ApiResponse.Error(404,
                $"run \"{id}\" ran outside this server (storagebench run, or another serve): its report is the summary.html in that run's " +
                $"--out folder (out/{id}/ by default); its figures are in the results table, and GET /api/compare judges it against another run");
        }
        if (!RuntimeStatus.IsDone(state.RuntimeStatus))
        {
            return ApiResponse.Error(409, $"run \"{id}\" is still {await StatusOfAsync(state, null, ct).ConfigureAwait(false)}: its report is written when it ends; GET /api/runs/{id} shows its progress");
        }
        return await RunResults.LoadAsync(client, results, id, ct, prices).ConfigureAwait(false) is { } summary
            ? ApiResponse.Page(HtmlReportWriter.Render(summary))
            : ApiResponse.Error(404, $"run \"{id}\" ended ({await StatusOfAsync(state, null, ct).ConfigureAwait(false)}) without a summary: {state.FailureMessage ?? "it was stopped before it wrote one"}");
    }

    private static ApiResponse NotFound(string id) => ApiResponse.Error(404, $"no run with id \"{id}\"");

    /// <summary>A run id in a route or a query parameter breaks the rule every run id follows (<see cref="Planner.RunIdRule"/>): 400, not 404.</summary>
    private static ValidationError RunIdError(string field, string? value) => new(field, $"\"{value}\"", Planner.RunIdRule);

    private static ApiResponse? BadRunId(string id) => Planner.IsValidRunId(id) ? null : ApiResponse.FieldError(400, "", RunIdError("id", id));
}
