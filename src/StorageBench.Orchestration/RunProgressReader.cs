using System.Text.Json;
using StorageBench.Engine;
using StorageBench.Engine.Planning;

namespace StorageBench.Orchestration;

/// <summary>What a run is doing now: its own status names the step it is on; that step's status says what the step does.</summary>
public static class RunProgressReader
{
    public static async Task<RunProgress?> CurrentAsync(IRunOrchestrationClient client, string runId, CancellationToken ct)
    {
        var run = await ProgressOf(client, runId, ct).ConfigureAwait(false);
        if (run is not { Phase: "step" })
        {
            return run;
        }
        var step = await ProgressOf(client, Planner.StepId(runId, run.Step), ct).ConfigureAwait(false);
        return step is null ? run : step with { Step = run.Step, Steps = run.Steps };
    }

    private static async Task<RunProgress?> ProgressOf(IRunOrchestrationClient client, string instanceId, CancellationToken ct) =>
        (await client.GetStateAsync(instanceId, ct).ConfigureAwait(false))?.CustomStatusJson is { } json
            ? JsonSerializer.Deserialize<RunProgress>(json, JsonDefaults.Options)
            : null;
}
