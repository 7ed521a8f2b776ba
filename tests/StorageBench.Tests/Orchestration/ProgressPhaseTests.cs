using StorageBench.Engine.Statistics;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// What a run says it is doing while it counts what its slices wrote: "verifying", without live figures. It said
/// "running" with the done slices' figures (`30/30 s, 215,000 entities, 0 entities/s`) for as long as a large table took.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(OrchestrationAzuriteCollection.Name)]
public class ProgressPhaseTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task WhileItsTableIsCountedTheRunSaysVerifyingAndShowsNoLiveRate()
    {
        // Verification's queries (GETs on the step's table) wait until the test has read the phase, so the phase is seen
        // however busy the machine is; the slices only POST batches.
        var seen = new TaskCompletionSource();
        var (proxy, target) = await FaultProxy.InFrontOfAsync(azurite.ConnectionString, "TableEndpoint", int.MaxValue, r =>
        {
            if (r.Method == "GET" && r.Path.Value?.Contains("/sbt", StringComparison.Ordinal) == true)
            {
                seen.Task.Wait(TimeSpan.FromSeconds(30));
            }
            return false;
        });
        await using var _ = proxy;
        await using var host = await azurite.NewHubAsync(target);
        var started = await new RunStarter(host, TimeProvider.System).StartAsync(
            """{ "scenario": "verifying-phase", "startDelaySeconds": 0, "tableInsert": { "entityCount": 200, "batchSize": 100, "slices": 2 } }""", "test", null, default);
        Assert.True(started.Started, string.Join("; ", started.Errors));

        RunProgress? verifying = null;
        var deadline = DateTime.UtcNow.AddSeconds(60);
        while (verifying is null && DateTime.UtcNow < deadline)
        {
            var state = await host.GetStateAsync(started.RunId!, default);
            var progress = state is null ? null : await RunProgressReader.CurrentAsync(host, azurite.Results, state, DateTime.UtcNow, default);
            verifying = progress is { Phase: StepOrchestrator.VerifyingPhase } ? progress : null;
            await Task.Delay(verifying is null ? 50 : 0);
        }
        seen.TrySetResult();
        var summary = await Pipeline.SummaryAsync(host, started.RunId!);

        Assert.NotNull(verifying);
        Assert.Equal(("tableInsert", 2), (verifying.Workload, verifying.Slices));
        Assert.Null(verifying.Live);
        Assert.Equal("verifying tableInsert on 2 slice(s)", StorageBench.Cli.ProgressDisplay.Phase(verifying));
        Assert.Equal(RunStatus.Completed, summary.Status);
        Assert.True(summary.Workloads.Single().Verified.Matched, summary.Workloads.Single().Verified.Detail);
    }
}
