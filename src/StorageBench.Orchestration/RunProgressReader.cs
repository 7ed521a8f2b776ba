using System.Text.Json;
using StorageBench.Engine;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.ResultsStore;

namespace StorageBench.Orchestration;

/// <summary>
/// What a run is doing now: its own status names the step it is on; that step's status says what the
/// step does; while a workload runs, its slices' progress rows say how far it is.
/// </summary>
public static class RunProgressReader
{
    /// <param name="results">Where slices report progress; null to leave live figures out.</param>
    public static async Task<RunProgress?> CurrentAsync(IRunOrchestrationClient client, ResultsTableStore? results, string runId, DateTime nowUtc, CancellationToken ct)
    {
        var run = await ProgressOf(client, runId, ct).ConfigureAwait(false);
        if (run is not { Phase: "step" })
        {
            return run;
        }
        string stepId = Planner.StepId(runId, run.Step);
        var step = await ProgressOf(client, stepId, ct).ConfigureAwait(false);
        if (step is null)
        {
            return run;
        }
        step = step with { Step = run.Step, Steps = run.Steps };
        if (results is null || step is not { Phase: "running", Workload: { } workload })
        {
            return step;
        }
        try
        {
            var slices = await results.ProgressAsync(runId, stepId, ct).ConfigureAwait(false);
            return step with { Live = WorkloadProgress.Of(slices, workload, nowUtc) };
        }
        catch (Exception ex) when (ex is Azure.RequestFailedException or HttpRequestException or AggregateException)
        {
            return step;   // the results store did not answer: the phase is still news
        }
    }

    private static async Task<RunProgress?> ProgressOf(IRunOrchestrationClient client, string instanceId, CancellationToken ct) =>
        (await client.GetStateAsync(instanceId, ct).ConfigureAwait(false))?.CustomStatusJson is { } json
            ? JsonSerializer.Deserialize<RunProgress>(json, JsonDefaults.Options)
            : null;
}
