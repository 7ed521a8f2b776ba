using StorageBench.Engine.ResultsStore;
using StorageBench.Orchestration;
using DurableTask.Core.History;

namespace StorageBench.Tests;

/// <summary>
/// The synchronized start, as far as the product controls it: the orchestrator chooses one instant for every slice,
/// no slice sends before it, and each slice reports honestly how late it passed it. How late that is depends on how
/// busy the machine is (the scheduler's punctuality), so it is measured on a quiet machine by scripts/benchmark.sh
/// (BENCHMARKS.md), not asserted here.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(AzuriteCollection.Name)]
public class SynchronizedStartTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task ThirtySlicesStartTogetherAtTheOrchestratorsChosenInstant()
    {
        await using var host = await azurite.NewHubAsync();
        var summary = await Pipeline.RunAsync(host, results: azurite.Results, specJson: """
            { "scenario": "sync-start", "startDelaySeconds": 4,
              "tableInsert": { "entityCount": 3000, "entitySizeBytes": 64, "batchSize": 100, "partitionCount": 30, "concurrency": 1, "slices": 30 } }
            """);

        // The orchestrator chose one instant, startDelaySeconds after it planned the step, and gave it to every slice.
        string stepId = summary.RunId + "-s000";
        // Each slice publishes the instant its plan names (the provider's history keeps no activity inputs).
        var planned = (await azurite.Results.ProgressAsync(summary.RunId, stepId, default)).Select(p => DateTime.SpecifyKind(p.StartAtUtc, DateTimeKind.Utc)).ToList();
        Assert.Equal(30, planned.Count);
        var startAt = Assert.Single(planned.Distinct());
        // The replay-safe clock of the episode that scheduled the slices: the last OrchestratorStarted before them.
        var history = await HubHistory.ReadAsync(host, stepId);
        int fanOut = history.ToList().FindIndex(e => e.Type == EventType.TaskScheduled && e.Name == ActivityNames.RunSlice);
        var planning = history.Take(fanOut).Last(e => e.Type == EventType.OrchestratorStarted).Timestamp;
        Assert.Equal(planning.AddSeconds(4), startAt, TimeSpan.FromMilliseconds(1));

        // Every slice wrote; none sent its first measured request before the instant, nor before it says it passed it.
        var slices = summary.Workloads.Single().PerSlice;
        Assert.Equal(30, slices.Count);
        Assert.True(summary.Workloads.Single().Timeline.Count > 0);
        var rows = await new ResultsTableStore(azurite.Target).ListSlicesAsync(summary.RunId, default);
        Assert.Equal(30, rows.Count);
        foreach (var row in rows)
        {
            var firstRequest = row.GetDateTimeOffset("StartedUtc")!.Value.UtcDateTime;
            double lag = row.GetDouble("StartLagSeconds")!.Value;
            Assert.True(lag >= 0);
            // Table timestamps keep 100 ns ticks; 1 ms of slack for rounding between the two clocks' readings.
            Assert.True(firstRequest >= startAt.AddSeconds(lag).AddMilliseconds(-1),
                $"slice {row.RowKey} sent at {firstRequest:HH:mm:ss.fff}, before passing the start {startAt:HH:mm:ss.fff} + its lag {lag * 1000:0} ms");
        }
        // The summary reports the slices' own lags, the latest as the spread's.
        Assert.Equal(slices.Max(s => s.StartLagSeconds), summary.Workloads.Single().SliceSpread!.MaxStartLagSeconds);
    }
}
