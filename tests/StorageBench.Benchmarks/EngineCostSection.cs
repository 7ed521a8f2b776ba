using System.Diagnostics;
using System.Globalization;
using System.Text;
using StorageBench.Cli;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;
using StorageBench.TaskHub;

namespace StorageBench.Benchmarks;

/// <summary>
/// Section 7: what the Durable engine costs at a run's two ends. From the client's schedule call (RunStarter.StartAsync
/// returned: the orchestration exists) to the first slice's first measured request, and from the last slice's end to the
/// stored result (the run row's write, and the orchestration's Completed). Each repetition starts its own worker on a
/// fresh hub, then schedules at once, as `storagebench run` does; the worker's start is timed apart.
/// </summary>
internal static class EngineCostSection
{
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <summary>What one repetition saw, in seconds.</summary>
    private sealed record Ends(double WorkerStart, double ToPlannedStart, double ToFirstSlice, double Delay, double LastSliceToRow, double LastSliceToCompleted,
        double BetweenSteps);

    public static RunSpec Quick(string root) => RunSpecParser.Parse(File.ReadAllText(Path.Combine(root, "specs", "quick.json"))).Spec!;

    /// <summary>256 slices (the most a step may have), 10 entities of 64 B each, one request per slice, two steps.</summary>
    public static RunSpec Sweep256 => new()
    {
        Scenario = "bench-engine-256",
        TableInsert = new TableInsertSpec { EntityCount = 2560, EntitySizeBytes = 64, BatchSize = 10, PartitionCount = 256, Concurrency = 1, Slices = 256 },
        Sweep = new SweepSpec("tableInsert.entitySizeBytes", [64, 128]),
    };

    public static async Task<string> WriteAsync(string root, int repetitions = 5)
    {
        var settings = new TaskHubSettings();
        var md = new StringBuilder();
        md.AppendLine("## 7. What the engine costs at a run's ends");
        md.AppendLine();
        md.AppendLine(string.Create(Inv, $"DurableTask.Core's TaskHubWorker on the Azure Storage provider, the hub in Azurite (loopback), as `storagebench run` runs it: each repetition starts its own Azurite and a worker on a fresh hub (timed apart: \"worker start\"), then schedules the run at once. ") +
            "**First gap**: from `RunStarter.StartAsync` returning (the orchestration created) to the first slice's first measured request (min `StartedUtc` of the slice rows); " +
            "it holds the spec's `startDelaySeconds`, which the engine does not cost, so the **engine's share** is gap − delay. \"To planned start\" is the planned `StartAtUtc` − schedule − delay (the orchestrations and the `PrepareTargets` activity before the step plans). " +
            "**Last gap**: from the last slice's end (max `EndedUtc`) to the run row's write in the results table (its `Timestamp`) and to the orchestration's `Completed` (the instance's last update). " +
            "The CLI polls the run's state once a second, so a user sees the result up to 1 s after Completed.");
        md.AppendLine();
        md.AppendLine(string.Create(Inv, $"TaskHubSettings: `MaxPollingInterval` {settings.MaxPollingInterval.TotalSeconds:0.###} s, `VisibilityTimeout` {settings.VisibilityTimeout.TotalSeconds:0} s, " +
            $"`MaxConcurrentActivities` {settings.MaxConcurrentActivities}, `MaxConcurrentOrchestrations` {settings.MaxConcurrentOrchestrations}, `ControlQueueBufferThreshold` {settings.ControlQueueBufferThreshold}. " +
            $"{repetitions} repetitions each; median (min–max). Goal: engine's share of the first gap ≤ 2 s, last gap ≤ 2 s."));
        md.AppendLine();
        md.AppendLine("| run | start delay | load avg | worker start | to planned start | first gap | engine's share | last slice → run row | last slice → Completed | between steps | goal (≤ 2 s) |");
        md.AppendLine("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|");
        foreach (var (label, spec) in new[] { ("specs/quick.json (2 + 2 slices, table then blob)", Quick(root)), ("256 slices × 2 steps (tableInsert sweep, 10 × 64 B per slice)", Sweep256) })
        {
            var ends = new List<Ends>();
            var loads = new List<double>();
            for (int rep = 0; rep < repetitions; rep++)
            {
                loads.Add(Load.Now());
                ends.Add(await MeasureAsync(spec, settings));
                var e = ends[^1];
                Console.WriteLine(string.Create(Inv, $"engine cost {spec.Scenario} #{rep}: worker {e.WorkerStart:0.00} s, planned +{e.ToPlannedStart:0.00} s, first gap {e.ToFirstSlice:0.00} s (delay {e.Delay:0.##}), " +
                    $"row +{e.LastSliceToRow:0.00} s, completed +{e.LastSliceToCompleted:0.00} s, between steps {e.BetweenSteps:0.00} s; load {loads[^1]:0.0}"));
            }
            double share = Stats.Median(ends.Select(e => e.ToFirstSlice - e.Delay));
            double last = Stats.Median(ends.Select(e => Math.Max(e.LastSliceToRow, e.LastSliceToCompleted)));
            md.AppendLine(Inv, $"| {label} | {spec.StartDelaySeconds:0.#} s | {loads.Min():0}–{loads.Max():0} | {Stats.Range(ends.Select(e => e.WorkerStart))} | {Stats.Range(ends.Select(e => e.ToPlannedStart))} | " +
                $"{Stats.Range(ends.Select(e => e.ToFirstSlice))} | {Stats.Range(ends.Select(e => e.ToFirstSlice - e.Delay))} | {Stats.Range(ends.Select(e => e.LastSliceToRow))} | " +
                $"{Stats.Range(ends.Select(e => e.LastSliceToCompleted))} | {(ends.All(e => double.IsNaN(e.BetweenSteps)) ? "—" : Stats.Range(ends.Select(e => e.BetweenSteps)))} | " +
                $"first {(share <= 2 ? "met" : "MISSED")}, last {(last <= 2 ? "met" : "MISSED")} |");
        }
        return md.ToString();
    }

    private static async Task<Ends> MeasureAsync(RunSpec spec, TaskHubSettings settings)
    {
        // An Azurite of its own: Azurite sweeps its queue store every 60 s of its life, pegging its core for seconds
        // (5-9 s once it held a few runs' hubs), which would land in whichever gap spans that moment.
        await using var azurite = await AzuriteServer.StartAsync();
        var target = StorageTarget.FromConnectionString(azurite.ConnectionString);
        using var results = new ResultsTableStore(target);
        var clock = Stopwatch.StartNew();
        await using var hub = await BenchmarkTaskHub.StartAsync(results.Target, [target], results, settings with { HubName = "eng" + Guid.NewGuid().ToString("N")[..10] });
        double workerStart = clock.Elapsed.TotalSeconds;
        var started = await new RunStarter(hub, TimeProvider.System).StartAsync(spec, "benchmark", null, default);
        var scheduled = DateTime.UtcNow;
        string runId = started.RunId ?? throw new InvalidOperationException("not started: " + string.Join("; ", started.Errors));
        var state = await hub.WaitForCompletionAsync(runId, default);
        if (state.RuntimeStatus != RuntimeStatus.Completed)
        {
            throw new InvalidOperationException($"engine-cost run {runId} ended {state.RuntimeStatus}: {state.FailureMessage}");
        }
        var slices = await results.ListSlicesAsync(runId, default);
        var rows = (await results.ListRunsAsync(spec.Scenario, 50, default)).Where(r => r.GetString(ResultsColumns.RunId) == runId).ToList();
        DateTime Started(Azure.Data.Tables.TableEntity s) => s.GetDateTimeOffset("StartedUtc")!.Value.UtcDateTime;
        DateTime Ended(Azure.Data.Tables.TableEntity s) => s.GetDateTimeOffset("EndedUtc")!.Value.UtcDateTime;
        var first = slices.MinBy(Started)!;
        var planned = Started(first).AddSeconds(-(first.GetDouble("StartLagSeconds") ?? 0));
        var lastEnd = slices.Max(Ended);
        var stored = rows.Max(r => r.Timestamp!.Value.UtcDateTime);
        // A sweep: the engine's time between one step's last slice and the next step's first.
        var steps = slices.GroupBy(s => s.GetString("StepId")).OrderBy(g => g.Key).ToList();
        double between = steps.Count > 1 ? (steps[1].Min(Started) - steps[0].Max(Ended)).TotalSeconds : double.NaN;
        return new Ends(workerStart, (planned - scheduled).TotalSeconds - spec.StartDelaySeconds, (Started(first) - scheduled).TotalSeconds, spec.StartDelaySeconds,
            (stored - lastEnd).TotalSeconds, (state.LastUpdatedUtc - lastEnd).TotalSeconds, between);
    }
}

/// <summary>The figures' machine context: the 1-minute load average (NaN where /proc has none), which every figure is printed beside.</summary>
internal static class Load
{
    public static double Now() => File.Exists("/proc/loadavg") ? double.Parse(File.ReadAllText("/proc/loadavg").Split(' ')[0], CultureInfo.InvariantCulture) : double.NaN;
}

internal static class Stats
{
    public static double Median(IEnumerable<double> values)
    {
        var sorted = values.Where(v => !double.IsNaN(v)).Order().ToList();
        return sorted.Count == 0 ? double.NaN : sorted.Count % 2 == 1 ? sorted[sorted.Count / 2] : (sorted[sorted.Count / 2 - 1] + sorted[sorted.Count / 2]) / 2;
    }

    /// <summary>"1.23 s (0.98–1.50)": median and range.</summary>
    public static string Range(IEnumerable<double> values, string unit = "s", string format = "0.00")
    {
        var list = values.Where(v => !double.IsNaN(v)).ToList();
        return list.Count == 0 ? "—" : string.Create(CultureInfo.InvariantCulture, $"{Median(list).ToString(format, CultureInfo.InvariantCulture)} {unit} ({list.Min().ToString(format, CultureInfo.InvariantCulture)}–{list.Max().ToString(format, CultureInfo.InvariantCulture)})");
    }
}
