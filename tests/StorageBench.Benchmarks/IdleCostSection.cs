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

    public static async Task<string> WriteAsync(string cliDll, int repetitions = 3, double runSeconds = 150, double windowSeconds = 60, double idleSeconds = 60)
    {
        await using var azurite = await AzuriteServer.StartAsync();
        var settings = new TaskHubSettings();
        var md = new StringBuilder();
        md.AppendLine("## 8. Nothing while it waits: CPU of a run that sends almost nothing");
        md.AppendLine();
        md.AppendLine(string.Create(Inv, $"**CLI run**: the published CLI (`scripts/build-cli.sh`, as `./scripts/bench.sh` runs it) on its own Azurite, open loop at `targetOperationsPerSecond` 1 for {runSeconds:0} s, one slice, single 64 B inserts, start delay 3 s, output to a file (progress lines every 10 s). ") +
            string.Create(Inv, $"Its CPU (utime + stime of /proc/<pid>/stat) is read over two {windowSeconds:0}-s windows inside the slice: the **first minute** starts 8 s after the CLI printed `Run … started` (start-up and the worker's first lease round are before it), and the one **after warm-up** ends 10 s before the slice's planned end (the end's verification is after it); ") +
            "both are checked against the slice row's `StartedUtc`/`EndedUtc`. What runs in them beside the one request a second: the slice's watch (cancel poll and progress write, each second), the CLI's state poll (each second; the slices' live figures only when the console shows them), the Durable worker's queue polls and lease renewals, the runtime. " +
            string.Create(Inv, $"**Idle worker**: a LocalTaskHub with the benchmark's orchestrators and activities registered and nothing scheduled, in its own process, {idleSeconds:0} s measured after 10 s to settle. ") +
            "**JIT** is the runtime's own count of the time it spent compiling in the window (`dotnet.jit.compilation.time`: read with `dotnet-counters` from the CLI, `JitInfo.GetCompilationTime` in the idle worker): in a young process tiered compilation still recompiles what has become hot (tier 0, then instrumented, then optimized), a warm-up that ends, not a loop. " +
            string.Create(Inv, $"**The loops** are the CPU less the JIT; what is left of the warm-up (type loading, stubs, the first GCs) still counts in them, so the first minute is shown but the goal is judged after it. Goal: the loops ≤ {Goal:P0} of one core. TaskHubSettings: `MaxPollingInterval` {settings.MaxPollingInterval.TotalSeconds:0.###} s, `VisibilityTimeout` {settings.VisibilityTimeout.TotalSeconds:0} s; thread pool `UnfairSemaphoreSpinLimit` 0 (Directory.Build.props). {repetitions} repetitions each; median (min–max)."));
        md.AppendLine();
        md.AppendLine("| process | load avg | CPU per second of wall clock | of it JIT | the loops | share of one core | goal (≤ 1 %) |");
        md.AppendLine("|---|---|---:|---:|---:|---:|---|");
        var firstMinutes = new List<CpuWindow>();
        var warms = new List<CpuWindow>();
        var runLoads = new List<double>();
        for (int rep = 0; rep < repetitions; rep++)
        {
            runLoads.Add(Load.Now());
            var (first, warm) = await CliRunAsync(cliDll, azurite, runSeconds, windowSeconds);
            firstMinutes.Add(first);
            warms.Add(warm);
            Console.WriteLine(string.Create(Inv, $"idle cost: CLI run at 1 op/s #{rep}: first minute {first}, after warm-up {warm}; load {runLoads[^1]:0.0}"));
        }
        md.AppendLine(Row("`storagebench run`, 1 op/s, one slice: first minute", runLoads, firstMinutes, judged: false));
        md.AppendLine(Row("`storagebench run`, 1 op/s, one slice: after warm-up", runLoads, warms));
        var idle = new List<CpuWindow>();
        var idleLoads = new List<double>();
        for (int rep = 0; rep < repetitions; rep++)
        {
            idleLoads.Add(Load.Now());
            idle.Add(await IdleWorkerAsync(azurite.ConnectionString, idleSeconds));
            Console.WriteLine(string.Create(Inv, $"idle cost: idle worker #{rep}: {idle[^1]}; load {idleLoads[^1]:0.0}"));
        }
        md.AppendLine(Row("idle worker (LocalTaskHub, nothing scheduled)", idleLoads, idle));
        return md.ToString();
    }

    private static string Row(string label, List<double> loads, List<CpuWindow> windows, bool judged = true)
    {
        string Ms(Func<CpuWindow, double?> of) => windows.All(w => of(w) is not null) ? Stats.Range(windows.Select(w => of(w)!.Value * 1000), "ms", "0.0") : "not measured";
        double loops = Stats.Median(windows.Select(w => w.Loops ?? w.Cpu));
        string verdict = !judged ? "warm-up, not judged" : loops <= Goal ? "met" : "MISSED";
        return string.Create(Inv, $"| {label} | {loads.Min():0}–{loads.Max():0} | {Ms(w => w.Cpu)} | {Ms(w => w.Jit)} | {Ms(w => w.Loops)} | {loops:P2} | {verdict} |");
    }

    /// <summary>CPU seconds per wall-clock second over a window, and of them the JIT's (null when it could not be read).</summary>
    private sealed record CpuWindow(double Cpu, double? Jit)
    {
        public DateTime From { get; init; }

        public DateTime To { get; init; }

        public double? Loops => Cpu - Jit;

        public override string ToString() => string.Create(Inv, $"{Cpu * 1000:0.0} ms CPU/s, JIT {(Jit is { } j ? (j * 1000).ToString("0.0", Inv) : "?")} ms/s");
    }

    /// <summary>The CLI's CPU over two windows inside the slice: its first minute, and the last minute before the slice's end.</summary>
    private static async Task<(CpuWindow First, CpuWindow Warm)> CliRunAsync(string cliDll, AzuriteServer azurite, double runSeconds, double windowSeconds)
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
        // The slice starts at scheduled + (the engine's share, under a second) + the 3-s start delay, and ends runSeconds later.
        var window = TimeSpan.FromSeconds(windowSeconds);
        await Task.Delay(TimeSpan.FromSeconds(8));
        var first = await MeasureAsync(process.Id, window, dir);
        await Task.Delay(scheduled + TimeSpan.FromSeconds(spec.StartDelaySeconds + runSeconds - 10) - window - DateTime.UtcNow);
        var warm = await MeasureAsync(process.Id, window, dir);
        string stdout = await drain;
        await process.WaitForExitAsync();
        if (process.ExitCode != 0 || runId is null)
        {
            throw new InvalidOperationException($"CLI run failed ({process.ExitCode}): {stdout}");
        }
        using var results = new ResultsTableStore(StorageTarget.FromConnectionString(azurite.ConnectionString));
        var slice = (await results.ListSlicesAsync(runId, default)).Single();
        var (started, ended) = (slice.GetDateTimeOffset("StartedUtc")!.Value.UtcDateTime, slice.GetDateTimeOffset("EndedUtc")!.Value.UtcDateTime);
        foreach (var w in new[] { first, warm })
        {
            if (w.From < started || w.To > ended)
            {
                throw new InvalidOperationException($"the measured window {w.From:HH:mm:ss.fff}–{w.To:HH:mm:ss.fff} is not inside the slice's {started:HH:mm:ss.fff}–{ended:HH:mm:ss.fff}");
            }
        }
        return (first, warm);
    }

    private static async Task<CpuWindow> MeasureAsync(int pid, TimeSpan window, string dir)
    {
        var (cpu0, wall0) = (ProcCpu.Seconds(pid), DateTime.UtcNow);
        var jit = JitCounter.ReadAsync(pid, window, dir);
        await Task.Delay(window);
        var (cpu1, wall1) = (ProcCpu.Seconds(pid), DateTime.UtcNow);
        double? jitSeconds = await jit;
        double wall = (wall1 - wall0).TotalSeconds;
        return new CpuWindow((cpu1 - cpu0) / wall, jitSeconds / wall) { From = wall0, To = wall1 };
    }

    /// <summary>An idle worker in its own process (this program's `idle-worker` mode); its CPU seconds per wall-clock second.</summary>
    private static async Task<CpuWindow> IdleWorkerAsync(string connection, double seconds)
    {
        var psi = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var a in new[] { Path.Combine(AppContext.BaseDirectory, "StorageBench.Benchmarks.dll"), "idle-worker", connection, seconds.ToString(Inv) })
        {
            psi.ArgumentList.Add(a);
        }
        using var process = Process.Start(psi)!;
        string stdout = await process.StandardOutput.ReadToEndAsync();
        await process.WaitForExitAsync();
        string[]? line = stdout.Split('\n').FirstOrDefault(l => l.StartsWith("cpu-per-second ", StringComparison.Ordinal))?.Split(' ');
        return process.ExitCode == 0 && line is [_, var cpu, "jit-per-second", var jit]
            ? new CpuWindow(double.Parse(cpu, Inv), double.Parse(jit, Inv))
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
        var (cpu0, jit0, wall0) = (ProcCpu.Seconds(self), System.Runtime.JitInfo.GetCompilationTime(), Stopwatch.GetTimestamp());
        await Task.Delay(TimeSpan.FromSeconds(seconds));
        var (cpu1, jit1, wall) = (ProcCpu.Seconds(self), System.Runtime.JitInfo.GetCompilationTime(), Stopwatch.GetElapsedTime(wall0));
        Console.WriteLine(string.Create(Inv, $"cpu-per-second {(cpu1 - cpu0) / wall.TotalSeconds:R} jit-per-second {(jit1 - jit0).TotalSeconds / wall.TotalSeconds:R}"));
    }
}

/// <summary>
/// The time another .NET process spends compiling (the runtime's `dotnet.jit.compilation.time` counter), read with
/// dotnet-counters (a dotnet tool from the package feed; scripts/benchmark.sh installs it and sets STORAGEBENCH_DOTNET_COUNTERS).
/// </summary>
internal static class JitCounter
{
    private const int IntervalSeconds = 10;
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <summary>Seconds of JIT over the next <paramref name="window"/>; null without dotnet-counters or when it reads nothing.</summary>
    public static async Task<double?> ReadAsync(int pid, TimeSpan window, string dir)
    {
        if (Environment.GetEnvironmentVariable("STORAGEBENCH_DOTNET_COUNTERS") is not { Length: > 0 } tool)
        {
            return null;
        }
        string csv = Path.Combine(dir, $"counters-{Guid.NewGuid():N}.csv");
        var psi = new ProcessStartInfo(tool) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var a in new[] { "collect", "-p", pid.ToString(Inv), "--counters", "System.Runtime[dotnet.jit.compilation.time]",
            // A reading every 10 s, the first window/10 of them kept (the tool attaches within a second or two, so they cover
            // the window to about that): a short interval costs the measured process CPU itself (3.5 ms/s more at 1 s).
            "--refresh-interval", IntervalSeconds.ToString(Inv),
            "--format", "csv", "-o", csv, "--duration", (window + TimeSpan.FromSeconds(IntervalSeconds)).ToString(@"dd\:hh\:mm\:ss", Inv) })
        {
            psi.ArgumentList.Add(a);
        }
        using var counters = Process.Start(psi)!;
        var drained = Task.WhenAll(counters.StandardOutput.ReadToEndAsync(), counters.StandardError.ReadToEndAsync());
        await counters.WaitForExitAsync();
        await drained;
        // Rows: timestamp, provider, "dotnet.jit.compilation.time (s / 10 sec)", Rate, seconds compiled in that interval.
        int readings = (int)(window.TotalSeconds / IntervalSeconds);
        var seconds = File.Exists(csv)
            ? File.ReadLines(csv).Select(l => l.Split(',')).Where(f => f.Length == 5 && f[2].StartsWith("dotnet.jit.compilation.time", StringComparison.Ordinal))
                .Select(f => double.Parse(f[4], Inv)).Take(readings).ToList()
            : [];
        return seconds.Count == readings ? seconds.Sum() : null;
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
