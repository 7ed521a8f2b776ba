using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// A step's last verification deletes the step's tables and containers once it has counted, in the same activity: no
/// DeleteTargets hop of its own, the deletion's requests counted as cleanup, nothing left in the target.
/// </summary>
[Collection(AzuriteCollection.Name)]
[Trait("Category", "Azurite")]
public class StepCleanupHopTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task TheLastVerificationDeletesTheStepsTargetsAndNoDeletionOfItsOwnRuns()
    {
        int deletions = 0;
        await using var host = await azurite.NewHubAsync(configure: r => r
            .AddActivity<StepTargets, Engine.Cost.TargetRequests>(ActivityNames.DeleteTargets, (_, _) =>
            {
                Interlocked.Increment(ref deletions);
                return Task.FromResult(new Engine.Cost.TargetRequests(0, 0));
            }));
        var spec = RunSpecParser.ParseOrThrow("""
            { "scenario": "e2e-cleanup-hop", "startDelaySeconds": 0, "tableInsert": { "entityCount": 100 }, "blobUpload": { "blobCount": 2, "blobSizeBytes": 1024 } }
            """);
        string runId = Planner.NewRunId(DateTime.UtcNow);

        Assert.True(await host.TryScheduleAsync(BenchmarkOrchestrator.Name, runId, new RunRequest(spec, "test"), default));
        var summary = await Pipeline.SummaryAsync(host, runId);

        Assert.Equal(RunStatus.Completed, summary.Status);
        Assert.Empty(summary.Errors);
        Assert.All(summary.Workloads, w => Assert.True(w.Verified.Matched, w.Workload));
        Assert.Equal(0, deletions);
        Assert.Equal(2, summary.TargetSideRequests!.Cleanup);
        Assert.Empty(await new TargetCleaner([azurite.Target]).OfRunAsync(runId, default));
    }
}
