using System.Collections.Concurrent;
using System.Text.Json;
using DurableTask.Core.History;
using StorageBench.Engine;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Statistics;
using StorageBench.Orchestration;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// A long, fast slice's figures outgrow the provider's queue messages (45 KiB): on the real engine they ride its large-message
/// blobs in the hub's own storage, come back exactly as merged, and leave nothing once the run's hub is deleted.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(OrchestrationAzuriteCollection.Name)]
public class LargeFiguresTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    private const int Segments = 12;

    [Fact]
    public async Task ASegmentedSliceWhoseFiguresOutgrowTheQueueCompletesAndItsResultRoundTripsExactly()
    {
        // What each segment handed back, by attempt id, as the orchestration read it (through JSON).
        var handedBack = new ConcurrentDictionary<string, SliceResult>();
        var largest = new ConcurrentDictionary<string, int>();
        var host = await azurite.NewHubAsync(configure: r => r.HandBack = (name, result) => Widen(name, result, handedBack),
            payloads: p => largest.AddOrUpdate(p.Type, p.Bytes, (_, seen) => Math.Max(seen, p.Bytes)));
        string hub = host.Settings.HubName.ToLowerInvariant();
        RunSummary summary;
        SliceOutcome outcome;
        try
        {
            // 12 one-second segments: the slice's orchestration continues as new after 10, carrying the figures so far.
            summary = await Pipeline.RunAsync(host, $$"""
                { "scenario": "large-figures", "startDelaySeconds": 1, "segmentSeconds": 1,
                  "tableInsert": { "entitySizeBytes": 64, "batchSize": 10, "partitionCount": 1, "concurrency": 2, "slices": 1,
                                   "durationSeconds": {{Segments}}, "targetOperationsPerSecond": 5 } }
                """, azurite.Results);
            string step = summary.Steps.Single();
            string slice = (await HubHistory.ReadAsync(host, step)).Single(e => e.Type == EventType.SubOrchestrationInstanceCreated && e.Name == SegmentedSlice.Name).InstanceId!;
            outcome = JsonSerializer.Deserialize<SliceOutcome>((await host.GetStateAsync(slice, default))!.OutputJson!, JsonDefaults.Compact)!;
            Assert.Contains(await BlobsOfAsync(hub + "-largemessages"), b => b.StartsWith(slice, StringComparison.Ordinal));
            host.DeleteWhenDisposed();
        }
        finally
        {
            await host.DisposeAsync();
        }

        foreach (var (type, bytes) in largest.OrderByDescending(p => p.Value).Take(5))
        {
            output.WriteLine($"largest {type}: {bytes:N0} bytes");
        }
        Assert.True(summary.Status == RunStatus.Completed, $"{summary.Status}: {string.Join("; ", summary.Errors)}");
        var table = summary.Workloads.Single();
        Assert.True(table.Verified.Matched, table.Verified.Detail);
        Assert.True(largest[nameof(SliceOutcome)] > 45 * 1024, $"{largest[nameof(SliceOutcome)]:N0} bytes: the figures never outgrew the queue");
        // Exactly the segments' figures as the merge puts them together, after every hop through the hub's blobs.
        var result = outcome.Result!;
        Assert.Equal(Segments, result.SegmentAttempts!.Count);
        SliceResult? expected = null;
        for (int k = 0; k < Segments; k++)
        {
            expected = SegmentMerge.Add(expected, handedBack[result.SegmentAttempts[k]], k, Segments);
        }
        Assert.Equal(JsonSerializer.Serialize(expected, JsonDefaults.Compact), JsonSerializer.Serialize(result, JsonDefaults.Compact));
        Assert.Equal(LatencyHistograms.Decode(result.LatencyHistogram).TotalCount, LatencyHistograms.Decode(table.LatencyHistogram).TotalCount);
        // The hub's delete takes its large-message container with its queues, tables and leases.
        Assert.DoesNotContain(await AccountContents.AllAsync(azurite.Target), n => n.Contains(hub, StringComparison.OrdinalIgnoreCase));
    }

    /// <summary>
    /// A segment's result with a wide spread of latencies and service times added, as HdrHistogram's own merge adds another
    /// recorder's, so the slice's merged figures are a long, fast slice's: a count in every bucket from 1 µs to an hour.
    /// </summary>
    private static object? Widen(string activity, object? handed, ConcurrentDictionary<string, SliceResult> handedBack)
    {
        if (activity != ActivityNames.RunSlice || handed is not SliceOutcome { Result: { } result })
        {
            return handed;
        }
        var random = new Random(result.AttemptId.GetHashCode(StringComparison.Ordinal));
        var wide = LatencyHistograms.Encode(WideHistograms.Full(() => random.Next(1, 100)), LatencyHistograms.Compact);
        var widened = result with
        {
            LatencyHistogram = Add(result.LatencyHistogram, wide),
            ServiceTimeHistogram = Add(result.ServiceTimeHistogram!, wide),
        };
        handedBack[result.AttemptId] = JsonSerializer.Deserialize<SliceResult>(JsonSerializer.Serialize(widened, JsonDefaults.Compact), JsonDefaults.Compact)!;
        return new SliceOutcome(widened);
    }

    private static string Add(string a, string b) => LatencyHistograms.Encode(LatencyHistograms.Merge([a, b]), LatencyHistograms.Compact);

    private async Task<List<string>> BlobsOfAsync(string container)
    {
        var names = new List<string>();
        await foreach (var blob in azurite.Blobs.GetBlobContainerClient(container).GetBlobsAsync())
        {
            names.Add(blob.Name);
        }
        return names;
    }
}
