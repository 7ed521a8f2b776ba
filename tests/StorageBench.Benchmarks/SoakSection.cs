using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;

namespace StorageBench.Benchmarks;

/// <summary>
/// The soak section: the published CLI runs one steady timed run against the floor server for many minutes while a
/// startup hook samples its resident set and GC heap; the figures say whether the driver's memory stays flat (within
/// 10 % of its value at minute 1) when the run is long.
/// </summary>
internal static partial class SoakSection
{
    public const string Heading = "## 11. ";
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <summary>Goal: resident memory at the end and at its highest stays within this share above minute 1.</summary>
    private const double Goal = 0.10;

    private const double StartDelaySeconds = 3;

    /// <summary>Closed loop, so the driver, not a schedule, sets the rate; EGT of 100 × 1 KB as section 5a's case.</summary>
    public static RunSpec Spec(double seconds) => new()
    {
        Scenario = "bench-soak",
        StartDelaySeconds = StartDelaySeconds,
        TableInsert = new TableInsertSpec { EntitySizeBytes = 1024, BatchSize = 100, PartitionCount = 16, Concurrency = 16, Slices = 2, DurationSeconds = seconds },
    };

    public static async Task<string> WriteAsync(string cliDll, string benchDir, double minutes, double sampleSeconds, string samplesCopy)
    {
        using var server = LeanDriverSection.StartFloorServer(Path.Combine(benchDir, "StorageBench.Benchmarks.dll"), out string connection);
        try
        {
            var egt = FloorCase.All.Single(c => c.Key == "egt");
            var (request, units) = await FloorCapacity.RequestOfAsync(egt);
            var before = FloorCapacity.Measure(FloorSink.AddressIn(connection), request, units, egt.InFlight, TimeSpan.FromSeconds(2));
            double loadBefore = Load.Now();
            var run = await CliRunAsync(cliDll, connection, minutes * 60, sampleSeconds);
            double loadAfter = Load.Now();
            var after = FloorCapacity.Measure(FloorSink.AddressIn(connection), request, units, egt.InFlight, TimeSpan.FromSeconds(2));
            Directory.CreateDirectory(Path.GetDirectoryName(samplesCopy)!);
            await File.WriteAllLinesAsync(samplesCopy, run.Samples.Select(s => string.Create(Inv,
                $"{(s.Utc - run.SliceStart).TotalSeconds:0.0}\t{s.ResidentBytes}\t{s.GcHeapBytes}\t{s.GcCommittedBytes}\t{s.MallocHeldBytes}\t{s.MallocInUseBytes}\t{s.Threads}\t{s.AnonymousBytes}\t{s.FileBytes}\t{s.SharedBytes}\t{s.JitMethods}"))
                .Prepend("seconds_into_run\trss_bytes\tgc_heap_bytes\tgc_committed_bytes\tmalloc_held_bytes\tmalloc_in_use_bytes\tthreads\tanonymous_bytes\tfile_backed_bytes\tshared_bytes\tjit_methods"));
            return Render(run, minutes, sampleSeconds, (before.UnitsPerSecond + after.UnitsPerSecond) / 2, loadBefore, loadAfter);
        }
        finally
        {
            server.StandardInput.Close();
            await server.WaitForExitAsync();
        }
    }

    private sealed record SoakRun(List<MemorySample> Samples, DateTime SliceStart, double SliceSeconds, double EntitiesPerSecond, long Entities, string Status, string Verified);

    private static string Render(SoakRun run, double minutes, double sampleSeconds, double floorCapacity, double loadBefore, double loadAfter)
    {
        var inSlice = run.Samples.Where(s => s.Utc >= run.SliceStart && s.Utc <= run.SliceStart.AddSeconds(run.SliceSeconds)).ToList();
        if (inSlice.Count == 0)
        {
            throw new InvalidOperationException("no memory sample inside the run's measured time");
        }
        var minuteOne = inSlice.MinBy(s => Math.Abs((s.Utc - run.SliceStart).TotalSeconds - 60));
        var later = inSlice.Where(s => s.Utc >= minuteOne.Utc).ToList();
        var end = later[^1];
        var md = new StringBuilder();
        md.AppendLine(Heading + "Driver memory over a long steady run (soak)");
        md.AppendLine();
        md.AppendLine(string.Create(Inv, $"Written by `./scripts/benchmark.sh --soak {minutes:0.##}` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC. ") +
            string.Create(Inv, $"The published CLI (`scripts/build-cli.sh`) runs one closed-loop timed run of {minutes:0.##} min against section 5a's floor server (its own process, answering at minimum cost, storing nothing), ") +
            "1 KB entities in EGTs of 100, 16 partitions, 2 slices × 16 in flight, start delay 3 s, the hub store its own Azurite as usual; the target is named by `STORAGEBENCH_TARGET_CONNECTION_STRING`, so no key is on a command line. " +
            string.Create(Inv, $"A startup hook in the CLI (this program's `StartupHook`, one thread that wakes every {sampleSeconds:0.##} s) samples its resident set (`Environment.WorkingSet`, from /proc), its GC heap after the last collection (`GC.GetGCMemoryInfo().HeapSizeBytes`) and the memory it has committed (`TotalCommittedBytes`), glibc malloc's bytes held from the system and in use (`mallinfo2`), its threads (`/proc/self/status`), its resident set's anonymous, file-backed and shared parts (`RssAnon`, `RssFile`, `RssShmem` of `/proc/self/status`; shared is the runtime's double mapping of JIT code and stubs) and the methods its JIT compiled (`JitInfo.GetCompiledMethodCount`). ") +
            "Times are from the slices' planned start (the CLI's `Run … started` + the start delay); minute 1 is the sample nearest 60 s, the highest and the end are after it. " +
            "The floor stores nothing, so the run's verification cannot match and its status says so; the memory and the rate are what this section measures. All samples: `out/soak/memory-samples.tsv`.");
        md.AppendLine();
        md.AppendLine("| figure | resident set | GC heap |");
        md.AppendLine("|---|---:|---:|");
        md.AppendLine(Row("minute 1", minuteOne.ResidentBytes, minuteOne.GcHeapBytes));
        var maxRss = later.MaxBy(s => s.ResidentBytes);
        var maxHeap = later.MaxBy(s => s.GcHeapBytes);
        md.AppendLine(string.Create(Inv, $"| highest after minute 1 | {MiB(maxRss.ResidentBytes)} (at {Minute(run, maxRss)}) | {MiB(maxHeap.GcHeapBytes)} (at {Minute(run, maxHeap)}) |"));
        md.AppendLine(Row(string.Create(Inv, $"end ({Minute(run, end)})"), end.ResidentBytes, end.GcHeapBytes));
        double endRatio = (double)end.ResidentBytes / minuteOne.ResidentBytes, maxRatio = (double)maxRss.ResidentBytes / minuteOne.ResidentBytes;
        md.AppendLine(string.Create(Inv, $"| end / minute 1 | {endRatio:0.000} ({endRatio - 1:+0.0%;-0.0%}) | {(double)end.GcHeapBytes / minuteOne.GcHeapBytes:0.000} |"));
        md.AppendLine(string.Create(Inv, $"| highest / minute 1 | {maxRatio:0.000} | {(double)maxHeap.GcHeapBytes / minuteOne.GcHeapBytes:0.000} |"));
        bool holds = endRatio <= 1 + Goal && maxRatio <= 1 + Goal;
        md.AppendLine();
        md.AppendLine(string.Create(Inv, $"**Goal** (resident set within {Goal:P0} of minute 1, at the end and at its highest): {(holds ? "holds" : "MISSED")}. ") +
            string.Create(Inv, $"**Rate**: {run.EntitiesPerSecond:N0} entities/s ({run.Entities:N0} entities counted in a {run.SliceSeconds:0}-s run; the floor's capacity for this case, a raw sender measured just before and after the run as in 5a: {floorCapacity:N0} entities/s, so the driver, sharing 2 cores, was {(run.EntitiesPerSecond >= 0.8 * floorCapacity ? "floor-bound" : "the bottleneck")}). ") +
            string.Create(Inv, $"Run status: {run.Status}, verified: {run.Verified}. Load average (1 min) {loadBefore:0.0} before, {loadAfter:0.0} after."));
        md.AppendLine();
        md.AppendLine("| minute | resident set | GC heap | GC committed | malloc held | malloc in use | threads | anonymous | file-backed | shared | JIT methods |");
        md.AppendLine("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        int step = Math.Max(1, (int)Math.Round(minutes / 10));
        // A run that ended early has no samples past its end: each sample is listed once.
        var listed = new HashSet<DateTime>();
        for (int m = 0; m <= (int)(run.SliceSeconds / 60); m += step)
        {
            var s = inSlice.MinBy(x => Math.Abs((x.Utc - run.SliceStart).TotalSeconds - Math.Max(m, 1) * 60));
            if (!listed.Add(s.Utc))
            {
                continue;
            }
            md.AppendLine(string.Create(Inv, $"| {Minute(run, s)} | {MiB(s.ResidentBytes)} | {MiB(s.GcHeapBytes)} | {MiB(s.GcCommittedBytes)} | {MiB(s.MallocHeldBytes)} | {MiB(s.MallocInUseBytes)} | {s.Threads} | {MiB(s.AnonymousBytes)} | {MiB(s.FileBytes)} | {MiB(s.SharedBytes)} | {s.JitMethods:N0} |"));
        }
        return md.ToString();
    }

    private static string Row(string label, long rss, long heap) => $"| {label} | {MiB(rss)} | {MiB(heap)} |";

    private static string MiB(long bytes) => string.Create(Inv, $"{bytes / 1_048_576.0:0.0} MiB");

    private static string Minute(SoakRun run, MemorySample s) => string.Create(Inv, $"{(s.Utc - run.SliceStart).TotalMinutes:0.0} min");

    private static async Task<SoakRun> CliRunAsync(string cliDll, string connection, double seconds, double sampleSeconds)
    {
        string dir = Path.Combine(Path.GetTempPath(), "bench-soak-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        string specFile = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(specFile, JsonSerializer.Serialize(Spec(seconds), RunSpecParser.Options));
        string samples = Path.Combine(dir, "memory-samples.txt");
        var psi = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, UseShellExecute = false };
        psi.Environment["DOTNET_STARTUP_HOOKS"] = typeof(StartupHook).Assembly.Location;
        psi.Environment[StartupHook.MemorySamplesVariable] = samples;
        psi.Environment[StartupHook.MemoryEveryVariable] = sampleSeconds.ToString(Inv);
        psi.Environment[TargetSettings.TargetConnectionString] = connection;
        foreach (var a in new[] { cliDll, "run", "--spec", specFile, "--out", dir })
        {
            psi.ArgumentList.Add(a);
        }
        using var process = Process.Start(psi)!;
        DateTime? started = null;
        var output = new StringBuilder();
        while (await process.StandardOutput.ReadLineAsync() is { } line)
        {
            output.AppendLine(line);
            if (started is null && line.StartsWith("Run ", StringComparison.Ordinal) && line.Contains(" started", StringComparison.Ordinal))
            {
                started = DateTime.UtcNow.AddSeconds(StartDelaySeconds);
                Console.WriteLine($"soak: {line}; sampling every {sampleSeconds} s for {seconds / 60:0.#} min");
            }
        }
        await process.WaitForExitAsync();
        string summaryFile = Path.Combine(dir, "summary.json");
        if (started is null || !File.Exists(summaryFile))
        {
            throw new InvalidOperationException($"the soak's CLI run failed ({process.ExitCode}): {output}");
        }
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(summaryFile));
        string status = json.RootElement.GetProperty("status").GetString()!;
        if (json.RootElement.GetProperty("workloads") is { } workloads && workloads.GetArrayLength() > 0)
        {
            var w = workloads[0];
            return new SoakRun(MemorySample.AllIn(samples), started.Value, seconds, w.GetProperty("throughput").GetProperty("entitiesPerSecond").GetDouble(),
                w.GetProperty("entities").GetInt64(), status, w.GetProperty("verified").GetProperty("matched").GetBoolean() ? "yes" : "no (the floor stores nothing)");
        }
        // A run that ended without its figures (its errors say why): the rate from the last progress line the CLI printed.
        var last = ProgressLine().Matches(output.ToString()).LastOrDefault();
        string errors = string.Join("; ", json.RootElement.GetProperty("errors").EnumerateArray().Select(e => e.GetString()!.Split("; stack")[0]));
        return new SoakRun(MemorySample.AllIn(samples), started.Value, seconds,
            last is null ? double.NaN : double.Parse(last.Groups[2].Value, NumberStyles.Number, Inv) / double.Parse(last.Groups[1].Value, Inv),
            last is null ? 0 : long.Parse(last.Groups[2].Value, NumberStyles.Number, Inv), $"{status} ({errors})", "no figures (the rate is the last progress line's)");
    }

    /// <summary>"running tableInsert on 2 slice(s): 1790/1800 s, 2,500,000,000 entities, …": seconds and entities so far.</summary>
    [GeneratedRegex(@"(\d+)/\d+ s, ([\d,]+) entities")]
    private static partial Regex ProgressLine();
}
