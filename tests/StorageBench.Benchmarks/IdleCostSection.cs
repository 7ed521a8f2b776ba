using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.Json;
using StorageBench.Cli;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.TaskHub;

namespace StorageBench.Benchmarks;

/// <summary>
/// Section 8: what the process costs while a run sends almost nothing. The published CLI runs an open-loop spec of
/// 1 request/s for 60 s (one slice, single 64 B inserts); its CPU (utime + stime from /proc/&lt;pid&gt;/stat) is read over a
/// window inside the slice's measured time, so start-up and the end's verification are outside it. Beside it, an idle
/// worker alone: a LocalTaskHub (registered, started, nothing scheduled) in its own process, 60 s after it settled.
/// </summary>
internal static class IdleCostSection
{
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <summary>Goal: every loop beside the measured path together, at most this share of one core.</summary>
    private const double Goal = 0.01;

    public static RunSpec OpenLoop(double seconds) => new()
    {
        Scenario = "bench-idle-cost",
        StartDelaySeconds = 3,
        TableInsert = new TableInsertSpec { EntitySizeBytes = 64, BatchSize = 1, PartitionCount = 1, Concurrency = 1, Slices = 1, DurationSeconds = seconds, TargetOperationsPerSecond = 1 },
    };

    public static async Task<string> WriteAsync(string cliDll, int repetitions = 3, double runSeconds = 60, double idleSeconds = 60)
    {
        await using var azurite = await AzuriteServer.StartAsync();
        var settings = new TaskHubSettings();
        var md = new StringBuilder();
        md.AppendLine("## 8. Nothing while it waits: CPU of a run that sends almost nothing");
        md.AppendLine();
        md.AppendLine(string.Create(Inv, $"**CLI run**: the published CLI (`scripts/build-cli.sh`, as `./scripts/bench.sh` runs it) on its own Azurite, open loop at `targetOperationsPerSecond` 1 for {runSeconds:0} s, one slice, single 64 B inserts, start delay 3 s. ") +
            "Its CPU (utime + stime of /proc/<pid>/stat) is read over a window that starts 8 s after the CLI printed `Run … started` and ends 10 s before the slice's planned end, so start-up, the worker's first lease round and the end's verification are outside it; " +
            "the window is checked against the slice row's `StartedUtc`/`EndedUtc`. What runs in it beside the one request a second: the slice's watch (cancel poll and progress write), the CLI's state and progress poll, the Durable worker's queue polls and lease renewals, the runtime. " +
            string.Create(Inv, $"**Idle worker**: a LocalTaskHub with the benchmark's orchestrators and activities registered and nothing scheduled, in its own process, {idleSeconds:0} s measured after 10 s to settle. ") +
            string.Create(Inv, $"Goal: ≤ {Goal:P0} of one core. TaskHubSettings: `MaxPollingInterval` {settings.MaxPollingInterval.TotalSeconds:0.###} s, `VisibilityTimeout` {settings.VisibilityTimeout.TotalSeconds:0} s. {repetitions} repetitions each; median (min–max)."));
        md.AppendLine();
        md.AppendLine("| process | load avg | CPU per second of wall clock | share of one core | goal (≤ 1 %) |");
        md.AppendLine("|---|---|---:|---:|---|");
        var runs = new List<double>();
        var runLoads = new List<double>();
        for (int rep = 0; rep < repetitions; rep++)
        {
            runLoads.Add(Load.Now());
            runs.Add(await CliRunAsync(cliDll, azurite, runSeconds));
            Console.WriteLine(string.Create(Inv, $"idle cost: CLI run at 1 op/s #{rep}: {runs[^1] * 1000:0.0} ms CPU/s; load {runLoads[^1]:0.0}"));
        }
        md.AppendLine(Row("`storagebench run`, 1 op/s, one slice", runLoads, runs));
        var idle = new List<double>();
        var idleLoads = new List<double>();
        for (int rep = 0; rep < repetitions; rep++)
        {
            idleLoads.Add(Load.Now());
            idle.Add(await IdleWorkerAsync(azurite.ConnectionString, idleSeconds));
            Console.WriteLine(string.Create(Inv, $"idle cost: idle worker #{rep}: {idle[^1] * 1000:0.0} ms CPU/s; load {idleLoads[^1]:0.0}"));
        }
        md.AppendLine(Row("idle worker (LocalTaskHub, nothing scheduled)", idleLoads, idle));
        return md.ToString();
    }

    private static string Row(string label, List<double> loads, List<double> cpuPerSecond) =>
        string.Create(Inv, $"| {label} | {loads.Min():0}–{loads.Max():0} | {Stats.Range(cpuPerSecond.Select(c => c * 1000), "ms", "0.0")} | {Stats.Median(cpuPerSecond):P2} | {(Stats.Median(cpuPerSecond) <= Goal ? "met" : "MISSED")} |");

    /// <summary>The CLI's CPU seconds per wall-clock second over the window inside the slice.</summary>
    private static async Task<double> CliRunAsync(string cliDll, AzuriteServer azurite, double runSeconds)
    {
        string dir = Path.Combine(Path.GetTempPath(), "bench-idle-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        string specFile = Path.Combine(dir, "spec.json");
        var spec = OpenLoop(runSeconds);
        await File.WriteAllTextAsync(specFile, JsonSerializer.Serialize(spec, RunSpecParser.Options));
        var psi = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var a in new[] { cliDll, "run", "--spec", specFile, "--connection-string", azurite.ConnectionString, "--out", dir })
        {
            psi.ArgumentList.Add(a);
        }
        using var process = Process.Start(psi)!;
        string? runId = null;
        while (await process.StandardOutput.ReadLineAsync() is { } line)
        {
            if (line.StartsWith("Run ", StringComparison.Ordinal) && line.Contains(" started", StringComparison.Ordinal))
            {
                runId = line.Split(' ')[1];
                break;
            }
        }
        var scheduled = DateTime.UtcNow;
        var drain = process.StandardOutput.ReadToEndAsync();
        // The slice starts at scheduled + ~(engine's share) + 3 s and ends runSeconds later.
        await Task.Delay(TimeSpan.FromSeconds(8));
        var (cpu0, wall0) = (ProcCpu.Seconds(process.Id), DateTime.UtcNow);
        await Task.Delay(TimeSpan.FromSeconds(runSeconds + spec.StartDelaySeconds - 8 - 10));
        var (cpu1, wall1) = (ProcCpu.Seconds(process.Id), DateTime.UtcNow);
        string stdout = await drain;
        await process.WaitForExitAsync();
        if (process.ExitCode != 0 || runId is null)
        {
            throw new InvalidOperationException($"CLI run failed ({process.ExitCode}): {stdout}");
        }
        using var results = new ResultsTableStore(StorageTarget.FromConnectionString(azurite.ConnectionString));
        var slice = (await results.ListSlicesAsync(runId, default)).Single();
        var (started, ended) = (slice.GetDateTimeOffset("StartedUtc")!.Value.UtcDateTime, slice.GetDateTimeOffset("EndedUtc")!.Value.UtcDateTime);
        if (wall0 < started || wall1 > ended)
        {
            throw new InvalidOperationException($"the measured window {wall0:HH:mm:ss.fff}–{wall1:HH:mm:ss.fff} is not inside the slice's {started:HH:mm:ss.fff}–{ended:HH:mm:ss.fff}");
        }
        return (cpu1 - cpu0) / (wall1 - wall0).TotalSeconds;
    }

    /// <summary>An idle worker in its own process (this program's `idle-worker` mode); its CPU seconds per wall-clock second.</summary>
    private static async Task<double> IdleWorkerAsync(string connection, double seconds)
    {
        var psi = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var a in new[] { Path.Combine(AppContext.BaseDirectory, "StorageBench.Benchmarks.dll"), "idle-worker", connection, seconds.ToString(Inv) })
        {
            psi.ArgumentList.Add(a);
        }
        using var process = Process.Start(psi)!;
        string stdout = await process.StandardOutput.ReadToEndAsync();
        await process.WaitForExitAsync();
        string? line = stdout.Split('\n').FirstOrDefault(l => l.StartsWith("cpu-per-second ", StringComparison.Ordinal));
        return process.ExitCode == 0 && line is not null ? double.Parse(line["cpu-per-second ".Length..], Inv)
            : throw new InvalidOperationException("idle worker failed: " + stdout);
    }

    /// <summary>The `idle-worker` mode: start a worker on a fresh hub, let it settle, read this process's CPU over <paramref name="seconds"/>.</summary>
    public static async Task IdleWorkerModeAsync(string connection, double seconds, TimeSpan? maxPollingInterval = null)
    {
        var target = StorageTarget.FromConnectionString(connection);
        using var results = new ResultsTableStore(target);
        await using var hub = await BenchmarkTaskHub.StartAsync([target], results, new TaskHubSettings { HubName = "idle" + Guid.NewGuid().ToString("N")[..10] } is var s && maxPollingInterval is { } poll ? s with { MaxPollingInterval = poll } : s);
        // The first lease round and JIT are start-up, not waiting.
        await Task.Delay(TimeSpan.FromSeconds(10));
        int self = Environment.ProcessId;
        var (cpu0, wall0) = (ProcCpu.Seconds(self), Stopwatch.GetTimestamp());
        await Task.Delay(TimeSpan.FromSeconds(seconds));
        var (cpu1, wall) = (ProcCpu.Seconds(self), Stopwatch.GetElapsedTime(wall0));
        Console.WriteLine(string.Create(Inv, $"cpu-per-second {(cpu1 - cpu0) / wall.TotalSeconds:R}"));
    }
}

/// <summary>A process's CPU time (user + system) from /proc/&lt;pid&gt;/stat.</summary>
internal static class ProcCpu
{
    /// <summary>Clock ticks per second of /proc's times (USER_HZ: 100 on Linux).</summary>
    private const double TicksPerSecond = 100;

    public static double Seconds(int pid)
    {
        string stat = File.ReadAllText($"/proc/{pid}/stat");
        // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
        string[] f = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        return (long.Parse(f[11], CultureInfo.InvariantCulture) + long.Parse(f[12], CultureInfo.InvariantCulture)) / TicksPerSecond;
    }
}
