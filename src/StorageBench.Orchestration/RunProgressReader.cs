using System.Text.Json;
using Microsoft.Extensions.Logging;
using StorageBench.Engine;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.StorageCalls;

namespace StorageBench.Orchestration;

/// <summary>
/// What a run is doing now: its own status names the step it is on; that step's status says what the
/// step does; while a workload runs, its slices' progress rows say how far it is.
/// </summary>
public static class RunProgressReader
{
    /// <param name="runState">The run's state, as the caller just read it: the run's own progress is its custom status.</param>
    /// <param name="results">Where slices report progress; null to leave live figures out.</param>
    /// <param name="logger">Where a progress read that was skipped is logged; none when not given.</param>
    public static async Task<RunProgress?> CurrentAsync(IRunOrchestrationClient client, ResultsTableStore? results, OrchestrationState runState, DateTime nowUtc, CancellationToken ct,
        ILogger? logger = null)
    {
        string runId = runState.InstanceId;
        var run = ProgressOf(runState);
        if (run is not { Phase: "step" })
        {
            return run;
        }
        string stepId = Planner.StepId(runId, run.Step);
        var step = ProgressOf(await client.GetStateAsync(stepId, ct).ConfigureAwait(false));
        if (step is null)
        {
            return run;
        }
        step = step with { Step = run.Step, Steps = run.Steps };
        if (results is null || step is not { Phase: StepOrchestrator.RunningPhase, Workload: { } workload })
        {
            return step;
        }
        // Not answered in time (or refused): this update shows the phase without live figures; the next one tries again.
        var (slices, _) = await StorageCall.TryAsync("progress", results.Policy.Quick, t => results.ProgressAsync(runId, stepId, t), ct, logger).ConfigureAwait(false);
        return slices is null ? step : step with { Live = WorkloadProgress.Of(slices, workload, nowUtc) };
    }

    private static RunProgress? ProgressOf(OrchestrationState? state) =>
        state?.CustomStatusJson is { } json ? JsonSerializer.Deserialize<RunProgress>(json, JsonDefaults.Options) : null;
}
