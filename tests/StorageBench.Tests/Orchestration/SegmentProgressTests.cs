using StorageBench.Engine.Measurement;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>
/// A slice run as segments shows its live progress since its start, not since its running segment's: each segment's
/// progress goes on from the counts of the segments before it, so the last word of every slice is its whole figures.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(OrchestrationAzuriteCollection.Name)]
public class SegmentProgressTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task ASegmentedSlicesProgressCountsEverySegmentSinceItsStart()
    {
        await using var host = await azurite.NewHubAsync();
        var summary = await Pipeline.RunAsync(host, results: azurite.Results, specJson: """
            { "scenario": "segment-progress", "startDelaySeconds": 1, "segmentSeconds": 1,
              "tableInsert": { "entitySizeBytes": 64, "batchSize": 10, "partitionCount": 2, "concurrency": 2, "slices": 2,
                               "durationSeconds": 4, "targetOperationsPerSecond": 10 } }
            """);

        Assert.True(summary.Status == RunStatus.Completed, $"{summary.Status}: {string.Join("; ", summary.Errors)}");
        var table = summary.Workloads.Single();
        var rows = await azurite.Results.ProgressAsync(summary.RunId, summary.RunId + "-s000", default);
        // Each slice's last progress row (its last segment's, done) holds what all four of its segments measured.
        Assert.Equal(2, rows.Count);
        Assert.All(rows, r => Assert.Equal(3, r.Segment));
        foreach (var slice in table.PerSlice)
        {
            var row = rows.Single(r => r.Slice == slice.SliceIndex);
            Assert.True(row.Done);
            Assert.Equal((slice.Operations, slice.Units, slice.Throttled, slice.Failed), (row.Counts.Operations, row.Counts.Units, row.Counts.Throttled, row.Counts.Failed));
        }
        // The workload's live figure, as the CLI's progress line and the runs API read it, is the summary's.
        var live = WorkloadProgress.Of(rows, "tableInsert", DateTime.UtcNow)!;
        Assert.Equal(table.Entities, live.Units);
        Assert.Equal(table.Operations, live.Operations);
    }
}
