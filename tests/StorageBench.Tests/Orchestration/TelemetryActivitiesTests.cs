using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// A run whose one worker sends no telemetry (a CLI run without an Application Insights connection) skips the two telemetry
/// activities, two hops of its orchestration; any other run calls both, once per step and once for the run.
/// </summary>
[Collection(AzuriteCollection.Name)]
[Trait("Category", "Azurite")]
public class TelemetryActivitiesTests(AzuriteFixture azurite)
{
    [Theory]
    [InlineData(true, 2)]
    [InlineData(false, 0)]
    public async Task TheTelemetryActivitiesRunOnlyWhereAWorkerMaySendTelemetry(bool telemetry, int calls)
    {
        int called = 0;
        await using var host = await azurite.NewHubAsync(configure: r => r
            .AddActivity<StepTelemetryInput, bool>(ActivityNames.EmitStepTelemetry, (_, _) => Task.FromResult(Interlocked.Increment(ref called) > 0))
            .AddActivity<RunSummary, bool>(ActivityNames.EmitRunTelemetry, (_, _) => Task.FromResult(Interlocked.Increment(ref called) > 0)));
        var spec = RunSpecParser.ParseOrThrow("""{ "scenario": "e2e-telemetry", "startDelaySeconds": 0, "tableInsert": { "entityCount": 100 } }""");
        string runId = Planner.NewRunId(DateTime.UtcNow);

        Assert.True(await host.TryScheduleAsync(BenchmarkOrchestrator.Name, runId, new RunRequest(spec, "test") { Telemetry = telemetry }, default));
        var summary = await Pipeline.SummaryAsync(host, runId);

        Assert.Equal(RunStatus.Completed, summary.Status);
        Assert.Empty(summary.Errors);
        Assert.True(summary.Workloads.Single().Verified.Matched);
        Assert.Equal(calls, called);
    }
}
