using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;

namespace StorageBench.Orchestration;

/// <summary>
/// What every entry point does (HTTP POST, nightly timer, local CLI): parse and validate the spec,
/// pick the instance id, start the orchestration. A rejected spec never reaches the orchestrator.
/// </summary>
public sealed class RunStarter(IRunOrchestrationClient client, TimeProvider time)
{
    public sealed record StartResult(bool Started, string? RunId, IReadOnlyList<ValidationError> Errors, bool AlreadyExisted = false);

    /// <summary>Starts a run from spec JSON; instanceId null means a fresh time-ordered id.</summary>
    public async Task<StartResult> StartAsync(string specJson, string host, string? instanceId, CancellationToken ct, bool checkRegression = false)
    {
        var (spec, errors) = RunSpecParser.Parse(specJson);
        return spec is null ? new StartResult(false, null, errors) : await StartAsync(spec, host, instanceId, ct, checkRegression).ConfigureAwait(false);
    }

    /// <summary>The nightly timer's start: one instance per UTC date, checked against the scenario's baseline.</summary>
    public Task<StartResult> StartNightlyAsync(string specJson, CancellationToken ct) =>
        StartAsync(specJson, "timer", NightlyInstanceId(time.GetUtcNow().UtcDateTime), ct, checkRegression: true);

    /// <summary>Starts a run from a spec object, validating it first.</summary>
    public async Task<StartResult> StartAsync(RunSpec spec, string host, string? instanceId, CancellationToken ct, bool checkRegression = false)
    {
        var errors = RunSpecValidator.Validate(spec).ToList();
        if (instanceId is not null && !Planner.IsValidRunId(instanceId))
        {
            errors.Add(new ValidationError("id", $"\"{instanceId}\"", Planner.RunIdRule));
        }
        if (errors.Count > 0)
        {
            return new StartResult(false, null, errors);
        }
        string runId = instanceId ?? Planner.NewRunId(time.GetUtcNow().UtcDateTime);
        bool created = await client.TryScheduleAsync(BenchmarkOrchestrator.Name, runId, new RunRequest(spec, host, checkRegression), ct).ConfigureAwait(false);
        return new StartResult(created, runId, [], AlreadyExisted: !created);
    }

    /// <summary>The nightly run's id: one per UTC date, so a double fire of the timer starts nothing the second time.</summary>
    public static string NightlyInstanceId(DateTime utcNow) => $"nightly-{utcNow:yyyyMMdd}";
}
