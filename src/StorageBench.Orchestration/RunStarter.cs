using StorageBench.Engine.Preflight;

namespace StorageBench.Orchestration;

/// <summary>
/// What every entry point does (HTTP POST, nightly timer, local CLI): parse and validate the spec,
/// pick the instance id, start the orchestration. A rejected spec never reaches the orchestrator.
/// </summary>
public sealed class RunStarter(IRunOrchestrationClient client, TimeProvider time)
{
    /// <param name="Refused">The storage preflight's failure: a valid spec, but an account refused or did not answer; nothing was started.</param>
    public sealed record StartResult(bool Started, string? RunId, IReadOnlyList<ValidationError> Errors, bool AlreadyExisted = false, PreflightFailure? Refused = null);

    /// <summary>Checked after the spec is valid and before the run is scheduled (null: not checked).</summary>
    public StoragePreflight? Preflight { get; init; }

    /// <summary>Requests a preflight the caller ran itself sent to the targets (the CLI checks before it starts a task hub): the summary counts them.</summary>
    public long PreflightRequests { get; init; }

    /// <summary>The runs' <see cref="RunRequest.Telemetry"/>: false where this process is their one worker and sends no telemetry.</summary>
    public bool Telemetry { get; init; } = true;

    /// <summary>What the driver may plan to hold; a spec over it is refused before anything starts (<see cref="MemoryBudget"/>).</summary>
    public MemoryBudget Memory { get; init; } = MemoryBudget.OfThisProcess(Environment.GetEnvironmentVariable);

    /// <summary>Starts a run from spec JSON; instanceId null means a fresh time-ordered id.</summary>
    public async Task<StartResult> StartAsync(string specJson, string host, string? instanceId, CancellationToken ct, bool checkRegression = false)
    {
        var (spec, errors) = RunSpecParser.Parse(specJson);
        return spec is null ? new StartResult(false, null, errors) : await StartAsync(spec, host, instanceId, ct, checkRegression).ConfigureAwait(false);
    }

    /// <summary>
    /// Nothing a run creates lives longer than this: the Function App's functionTimeout (25 h) bounds every
    /// activity. The nightly run, and `storagebench cleanup` by default, delete only what is older.
    /// </summary>
    public const double LeftoverAgeHours = 25;

    /// <summary>
    /// The nightly timer's start: one instance per UTC date, checked against the scenario's baseline,
    /// after deleting leftovers of runs whose driver died.
    /// </summary>
    public async Task<StartResult> StartNightlyAsync(string specJson, CancellationToken ct)
    {
        var (spec, errors) = RunSpecParser.Parse(specJson);
        return spec is null ? new StartResult(false, null, errors)
            : await StartAsync(spec, "timer", NightlyInstanceId(time.GetUtcNow().UtcDateTime), ct, checkRegression: true, cleanupOlderThanHours: LeftoverAgeHours).ConfigureAwait(false);
    }

    /// <summary>Starts a run from a spec object, validating it first.</summary>
    public async Task<StartResult> StartAsync(RunSpec spec, string host, string? instanceId, CancellationToken ct, bool checkRegression = false,
        double? cleanupOlderThanHours = null)
    {
        var errors = RunSpecValidator.Validate(spec).ToList();
        if (errors.Count == 0 && Memory.Refusal(spec) is { } tooMuch)
        {
            errors.Add(tooMuch);
        }
        if (instanceId is not null && !Planner.IsValidRunId(instanceId))
        {
            errors.Add(new ValidationError("id", $"\"{instanceId}\"", Planner.RunIdRule));
        }
        if (errors.Count > 0)
        {
            return new StartResult(false, null, errors);
        }
        if (Preflight is not null && await Preflight.CheckAsync(spec, ct).ConfigureAwait(false) is { } refused)
        {
            return new StartResult(false, null, [], Refused: refused);
        }
        string runId = instanceId ?? Planner.NewRunId(time.GetUtcNow().UtcDateTime);
        var request = new RunRequest(spec, host, checkRegression, cleanupOlderThanHours) { PreflightRequests = PreflightRequests + (Preflight?.TargetRequests ?? 0), Telemetry = Telemetry };
        bool created = await client.TryScheduleAsync(BenchmarkOrchestrator.Name, runId, request, ct).ConfigureAwait(false);
        return new StartResult(created, runId, [], AlreadyExisted: !created);
    }

    /// <summary>The nightly run's id: one per UTC date, so a double fire of the timer starts nothing the second time.</summary>
    public static string NightlyInstanceId(DateTime utcNow) => $"nightly-{utcNow:yyyyMMdd}";
}
