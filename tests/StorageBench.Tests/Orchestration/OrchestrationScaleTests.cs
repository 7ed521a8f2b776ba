using StorageBench.Engine.Statistics;
using StorageBench.Orchestration;
using DurableTask.Core.History;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// What Durable Task imposes and the pipeline must survive: activities that run twice, histories that
/// must not grow with a run's slices or steps, and payloads that must stay within their budget.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(OrchestrationAzuriteCollection.Name)]
public class OrchestrationScaleTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    [Fact]
    public async Task ASliceThatRunsTwiceIsCountedOnceAndTheOtherExecutionsWritesAreDeleted()
    {
        await using var host = await azurite.NewHubAsync(configure: r => r.ExecutionsOf = name => name is ActivityNames.RunSlice ? 2 : 1);

        var summary = await Pipeline.RunAsync(host, """
            { "scenario": "twice", "startDelaySeconds": 0,
              "tableInsert": { "entityCount": 500, "entitySizeBytes": 128, "batchSize": 50, "partitionCount": 2, "slices": 2 },
              "blobUpload": { "blobCount": 4, "blobSizeBytes": 20000, "blockSizeBytes": 10000, "slices": 2, "verifyContent": true } }
            """, azurite.Results);

        Assert.Equal(RunStatus.Completed, summary.Status);
        var table = summary.Workloads.Single(w => w.Workload == "tableInsert");
        Assert.Equal(500, table.Entities);
        Assert.True(table.Verified.Matched, table.Verified.Detail);
        Assert.Equal(500, table.Verified.Actual);
        Assert.Equal(500, table.Verified.Discarded);   // the first executions' entities: written, not counted, deleted
        var blob = summary.Workloads.Single(w => w.Workload == "blobUpload");
        Assert.True(blob.Verified.Matched, blob.Verified.Detail);
        Assert.Equal(4, blob.BlobsCommitted);
        Assert.Equal(4, blob.Verified.Discarded);
        // One slice row per slice: the accepted execution's.
        Assert.Equal(table.SliceAttempts, table.PerSlice.Select(s => s.Attempt));
        var rows = await azurite.Results.ListSlicesAsync(summary.RunId, default);
        Assert.Equal(4, rows.Count);
    }

    [Fact]
    public async Task A256SliceRunKeepsEveryPayloadInsideTheBudget()
    {
        var largest = new Dictionary<string, PayloadRecord>();
        await using var host = await azurite.NewHubAsync(payloads: p =>
        {
            lock (largest)
            {
                if (!largest.TryGetValue(p.Type, out var seen) || seen.Bytes < p.Bytes)
                {
                    largest[p.Type] = p;
                }
            }
        });

        var summary = await Pipeline.RunAsync(host, """
            { "scenario": "slices-256", "startDelaySeconds": 5, "client": { "primeRounds": 0 },
              "tableInsert": { "entityCount": 512, "entitySizeBytes": 64, "batchSize": 2, "partitionCount": 256, "concurrency": 1, "slices": 256 },
              "blobUpload": { "blobCount": 256, "blobSizeBytes": 2048, "blockSizeBytes": 1024, "parallelBlocks": 2, "slices": 256 } }
            """);

        Assert.True(summary.Status == RunStatus.Completed, $"{summary.Status}: {string.Join("; ", summary.Errors)}");
        Assert.All(summary.Workloads, w => Assert.True(w.Verified.Matched, w.Verified.Detail));
        Assert.Equal(512, summary.Workloads[0].Entities);
        Report(largest);
        Assert.All(largest.Values, p => Assert.False(p.IsOver, $"{p.Type}: {p.Bytes} bytes"));
    }

    [Fact]
    public async Task ATenStepSweepRunsEachStepAsASubOrchestrationSoNoHistoryHoldsAnotherStepsSlices()
    {
        var largest = new List<PayloadRecord>();
        await using var host = await azurite.NewHubAsync(payloads: p => { lock (largest) { largest.Add(p); } });

        var summary = await Pipeline.RunAsync(host, """
            { "scenario": "sweep-10", "startDelaySeconds": 0,
              "tableInsert": { "entityCount": 120, "entitySizeBytes": 64, "batchSize": 10, "slices": 3, "partitionCount": 3 },
              "blobUpload": { "blobCount": 3, "blobSizeBytes": 4096, "blockSizeBytes": 1024, "slices": 3 },
              "sweep": { "parameter": "tableInsert.concurrency", "values": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] } }
            """);

        Assert.Equal(RunStatus.Completed, summary.Status);
        Assert.Equal(10, summary.Steps.Count);
        Assert.Equal(20, summary.Workloads.Count);
        var run = await HubHistory.ReadAsync(host, summary.RunId);
        Assert.Equal(10, run.Count(e => e.Type == EventType.SubOrchestrationInstanceCreated));
        // The run's own history: environment, storing and telemetry — never a slice.
        Assert.DoesNotContain(run, e => e.Type == EventType.TaskScheduled && e.Name is ActivityNames.RunSlice);
        int longest = 0;
        foreach (string step in summary.Steps)
        {
            var history = await HubHistory.ReadAsync(host, step);
            Assert.Equal(6, history.Count(e => e.Type == EventType.TaskScheduled && e.Name is ActivityNames.RunSlice));
            longest = Math.Max(longest, history.Count);
        }
        output.WriteLine($"run history: {run.Count} events; step histories: {longest} events at most");
        Report(largest.GroupBy(p => p.Type).ToDictionary(g => g.Key, g => g.MaxBy(p => p.Bytes)!));
        Assert.All(largest, p => Assert.False(p.IsOver, $"{p.Type}: {p.Bytes} bytes"));
    }

    private void Report(Dictionary<string, PayloadRecord> largest)
    {
        foreach (var p in largest.Values.OrderByDescending(p => p.Bytes).Take(6))
        {
            output.WriteLine($"largest {p.Type}: {p.Bytes:N0} bytes (budget {p.Budget:N0})");
        }
    }
}
