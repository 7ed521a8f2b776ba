using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>The synchronized start, measured with nothing else running (it is a timing property).</summary>
[Collection(QuietAzuriteCollection.Name)]
public class SynchronizedStartTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task ThirtySlicesStartTogetherAtTheOrchestratorsChosenInstant()
    {
        var summary = await Pipeline.RunAsync(azurite.NewHost(), results: azurite.Results, specJson: """
            { "scenario": "sync-start", "startDelaySeconds": 4,
              "tableInsert": { "entityCount": 3000, "entitySizeBytes": 64, "batchSize": 100, "partitionCount": 30, "concurrency": 1, "slices": 30 } }
            """);

        var slices = summary.Workloads.Single().PerSlice;
        Assert.Equal(30, slices.Count);
        // Each slice's preflight (connection, SDK warm-up) finished before the start, so none passed it late.
        Assert.All(slices, s => Assert.True(s.StartLagSeconds < 0.25, $"slice {s.SliceIndex} started {s.StartLagSeconds * 1000:0} ms late"));
        Assert.True(summary.Workloads.Single().Timeline.Count > 0);   // every slice wrote
        // Each slice's measured window begins when its first request is sent: all within a short spread.
        var firstRequests = await FirstRequestSpreadAsync(summary);
        Assert.True(firstRequests < TimeSpan.FromMilliseconds(500),
            $"slices started {firstRequests.TotalMilliseconds:0} ms apart; start lags (ms): {string.Join(", ", slices.Select(s => (s.StartLagSeconds * 1000).ToString("0")))}");
    }

    private async Task<TimeSpan> FirstRequestSpreadAsync(RunSummary summary)
    {
        var rows = await new ResultsTableStore(azurite.Target).ListSlicesAsync(summary.RunId, default);
        var starts = rows.Select(r => r.GetDateTimeOffset("StartedUtc")!.Value).ToList();
        Assert.Equal(30, starts.Count);
        return starts.Max() - starts.Min();
    }
}
