using System.Collections.Concurrent;
using System.Diagnostics;
using Azure.Data.Tables;
using StorageBench.Engine.Statistics;
using StorageBench.Orchestration;
using StorageBench.TaskHub;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// A segmented slice's orchestration history does not grow with the run: 16 slices of 6 and of 60 one-second segments, on
/// the real engine and Azurite, with each orchestrator call timed (the replay of its history and its next decisions) and its
/// History table rows read. BENCHMARKS.md section 12 holds the figures. A minute and a half of runs, so only on request.
/// </summary>
[Trait("Category", "EndToEnd")]
public class SegmentHistoryTests(AzuriteFixture azurite, ITestOutputHelper output) : IClassFixture<AzuriteFixture>
{
    [MeasurementFact]
    public async Task ReplayTimeAndHistoryPerSliceStayBoundedFromSixToSixtySegments()
    {
        var six = await MeasureAsync(6);
        var sixty = await MeasureAsync(60);
        // Ten times the segments: each generation's history, and so each call's replay, is as long as with six.
        Assert.True(sixty.MaxEvents <= six.MaxEvents * 2, $"{sixty.MaxEvents} events in one generation at 60 segments, {six.MaxEvents} at 6");
    }

    private async Task<HistoryFigures> MeasureAsync(int segments)
    {
        var calls = new ConcurrentBag<(string Instance, double Ms)>();
        var settings = AzuriteFixture.NewHubSettings();
        await using var hub = await BenchmarkTaskHub.StartAsync(azurite.Results.Target, [azurite.Target], azurite.Results, settings,
            configure: r => r.AddOrchestrator<SegmentedSliceInput, SliceOutcome>(SegmentedSlice.Name, async (context, input) =>
            {
                // The call runs synchronously through its replayed history up to its first decision still pending.
                long began = Stopwatch.GetTimestamp();
                var run = SegmentedSlice.RunAsync(context, input);
                calls.Add((context.InstanceId, Stopwatch.GetElapsedTime(began).TotalMilliseconds));
                return await run;
            }));
        var summary = await Pipeline.RunAsync(hub, $$"""
            { "scenario": "segment-history", "startDelaySeconds": 2, "segmentSeconds": 1,
              "tableInsert": { "entitySizeBytes": 64, "batchSize": 10, "partitionCount": 16, "concurrency": 1, "slices": 16,
                               "durationSeconds": {{segments}}, "targetOperationsPerSecond": 16 } }
            """);
        Assert.Equal(RunStatus.Completed, summary.Status);
        // The hub lives in the fixture's Azurite, beside the results: the provider's History table, one partition per instance.
        var history = azurite.Tables.GetTableClient(settings.HubName + "History");
        var instances = calls.Select(c => c.Instance).Distinct().ToList();
        long rows = 0, bytes = 0;
        int maxEvents = 0;
        foreach (string instance in instances)
        {
            var events = new List<TableEntity>();
            await foreach (var e in history.QueryAsync<TableEntity>(TableClient.CreateQueryFilter($"PartitionKey eq {instance}")))
            {
                events.Add(e);
            }
            rows += events.Count;
            bytes += events.Sum(e => e.Sum(p => (p.Value?.ToString()?.Length ?? 0) + p.Key.Length));
            maxEvents = Math.Max(maxEvents, events.GroupBy(e => e.GetString("ExecutionId")).Max(g => g.Count()));
        }
        var ms = calls.Select(c => c.Ms).Order().ToList();
        var figures = new HistoryFigures(segments, instances.Count, rows, bytes, maxEvents, ms.Count, ms[ms.Count / 2], ms[^1], ms.Sum());
        output.WriteLine(figures.ToString());
        return figures;
    }

    private sealed record HistoryFigures(int Segments, int Instances, long Rows, long Bytes, int MaxEvents, int Calls, double MedianCallMs, double MaxCallMs, double TotalCallMs);
}

/// <summary>A measurement, not a check of the product: run only when STORAGEBENCH_MEASURE=1 (xUnit 2 decides skips at discovery).</summary>
public sealed class MeasurementFactAttribute : FactAttribute
{
    public MeasurementFactAttribute()
    {
        if (Environment.GetEnvironmentVariable("STORAGEBENCH_MEASURE") != "1")
        {
            Skip = "a measurement for BENCHMARKS.md: set STORAGEBENCH_MEASURE=1 to run it";
        }
    }
}
