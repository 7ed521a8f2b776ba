using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Text;
using Azure.Data.Tables;
using StorageBench.Cli;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Statistics;
using StorageBench.Orchestration;
using StorageBench.TaskHub;

namespace StorageBench.Benchmarks;

/// <summary>
/// Section 12: a segmented slice's orchestration history does not grow with the run. 16 slices of 6 and of 60 one-second
/// segments run on the real engine (DurableTask.Core with the Azure Storage provider) on Azurite, in this process, with each
/// orchestrator call timed (the replay of its history and its next decisions) and the slices' History table rows read after.
/// </summary>
internal static class SegmentHistorySection
{
    public const string Heading = "## 12. ";
    public static readonly int[] SegmentCounts = [6, 60];
    private const int Slices = 16;
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    private sealed record HistoryFigures(int Segments, int Instances, long Rows, long Bytes, int MaxEvents, int Calls, double MedianCallMs, double MaxCallMs, double TotalCallMs);

    public static async Task<string> WriteAsync()
    {
        // Slices wait on timers and run many async loops, as in the CLI: the same thread-pool setting.
        DriverProcess.Configure();
        await using var azurite = await AzuriteServer.StartAsync();
        var figures = new List<HistoryFigures>();
        double loadBefore = Load.Now();
        foreach (int segments in SegmentCounts)
        {
            figures.Add(await MeasureAsync(azurite.ConnectionString, segments));
            Console.WriteLine($"segment history: {figures[^1]}");
        }
        return Render(figures, loadBefore, Load.Now());
    }

    private static async Task<HistoryFigures> MeasureAsync(string connection, int segments)
    {
        var target = Engine.Targets.StorageTarget.FromConnectionString(connection);
        var results = new ResultsTableStore(target);
        var calls = new ConcurrentBag<(string Instance, double Ms)>();
        var settings = new TaskHubSettings { HubName = $"history{segments}x{Guid.NewGuid():N}"[..24] };
        string runId;
        await using (var hub = await BenchmarkTaskHub.StartAsync(target, [target], results, settings,
            configure: r => r.AddOrchestrator<SegmentedSliceInput, SliceOutcome>(SegmentedSlice.Name, async (context, input) =>
            {
                // The call runs synchronously through its replayed history up to its first decision still pending.
                long began = Stopwatch.GetTimestamp();
                var run = SegmentedSlice.RunAsync(context, input);
                calls.Add((context.InstanceId, Stopwatch.GetElapsedTime(began).TotalMilliseconds));
                return await run;
            })))
        {
            var started = await new RunStarter(hub, TimeProvider.System).StartAsync(Spec(segments), "benchmark", null, default);
            runId = started.RunId ?? throw new InvalidOperationException($"the history run did not start: {string.Join("; ", started.Errors)}");
            var state = await hub.WaitForCompletionAsync(runId, default).WaitAsync(TimeSpan.FromMinutes(15));
            var summary = await RunResults.LoadAsync(hub, results, runId, default);
            if (summary?.Status != RunStatus.Completed)
            {
                throw new InvalidOperationException($"the history run {runId} ended {summary?.Status.ToString() ?? state.RuntimeStatus}: {state.FailureMessage}");
            }
        }
        // The provider's History table, one partition per instance: the slices' orchestrations.
        var history = new TableServiceClient(connection).GetTableClient(settings.HubName + "History");
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
        return new HistoryFigures(segments, instances.Count, rows, bytes, maxEvents, ms.Count, ms[ms.Count / 2], ms[^1], ms.Sum());
    }

    /// <summary>An open loop of 1 batch/s a slice (16/s in all) with 1-s segments, so a slice of N seconds runs N segments.</summary>
    private static string Spec(int segments) => $$"""
        { "scenario": "segment-history", "startDelaySeconds": 2, "segmentSeconds": 1,
          "tableInsert": { "entitySizeBytes": 64, "batchSize": 10, "partitionCount": {{Slices}}, "concurrency": 1, "slices": {{Slices}},
                           "durationSeconds": {{segments}}, "targetOperationsPerSecond": {{Slices}} } }
        """;

    private static string Render(List<HistoryFigures> figures, double loadBefore, double loadAfter)
    {
        var md = new StringBuilder();
        md.AppendLine(Heading + "History of a segmented slice");
        md.AppendLine();
        md.AppendLine(string.Create(Inv, $"Written by `./scripts/benchmark.sh --segment-history` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC, load average (1 min) {loadBefore:0.0} before, {loadAfter:0.0} after. ") +
            "A timed slice longer than `segmentSeconds` runs as its own orchestration (`SegmentedSlice`) that continues as new every " +
            string.Create(Inv, $"{SegmentedSlice.SegmentsPerGeneration} segments, so its history, and the replay of that history on every orchestrator call, should not grow with the run. ") +
            string.Create(Inv, $"Measured on the real engine (DurableTask.Core with the Azure Storage provider) on Azurite, in the benchmark's own process: {Slices} slices of `tableInsert` ") +
            "(open loop, 1 batch of 10 entities a second a slice) with 1-s segments, at " + string.Join(" and at ", SegmentCounts) + " segments a slice. " +
            "An orchestrator call is timed from its start to its first decision still pending: the replay of its history plus its new decisions. " +
            "History rows are those of the slice orchestrations in the hub's History table after the run (the provider keeps the last generation of an instance continued as new).");
        md.AppendLine();
        md.AppendLine("| segments a slice | orchestrator calls | call median | call max | all calls | History rows (instances) | row bytes | most events in one generation |");
        md.AppendLine("|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var f in figures)
        {
            md.AppendLine(string.Create(Inv, $"| {f.Segments} | {f.Calls:N0} | {f.MedianCallMs:0.00} ms | {f.MaxCallMs:0.0} ms | {f.TotalCallMs:N0} ms | {f.Rows:N0} ({f.Instances}) | {f.Bytes / 1000.0:N0} KB | {f.MaxEvents} |"));
        }
        var (few, many) = (figures[0], figures[^1]);
        md.AppendLine();
        md.AppendLine(string.Create(Inv, $"{(double)many.Segments / few.Segments:0} times the segments: {(double)many.Calls / few.Calls:0.0} times the calls (about one a segment, as they must), ") +
            string.Create(Inv, $"a call's median {(many.MedianCallMs <= few.MedianCallMs * 2 ? "does not grow" : "GROWS")} ({few.MedianCallMs:0.00} → {many.MedianCallMs:0.00} ms), ") +
            string.Create(Inv, $"and the largest generation holds {many.MaxEvents} events against {few.MaxEvents} ({(many.MaxEvents <= few.MaxEvents * 2 ? "bounded by the generation, not the run" : "NOT BOUNDED")}); ") +
            string.Create(Inv, $"without continue-as-new a {many.Segments}-segment slice's last calls would replay about 6 × {many.Segments} = {6 * many.Segments} events each. ") +
            "A call's maximum is one pause on a loaded machine, not the history. The row bytes are mostly payloads (each segment's order and figures, and the merged figures carried into each generation).");
        return md.ToString();
    }
}
