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
/// 1 request/s for 150 s (one slice, single 64 B inserts); its CPU and JIT time, sampled each second inside it by a startup hook, are read over
/// windows inside the slice's measured time, so start-up and the end's verification are outside it. Beside it, an idle
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
            string.Create(Inv, $"Its CPU (user + system, `Environment.CpuUsage`) and JIT time (`JitInfo.GetCompilationTime`) are sampled each second inside it by a startup hook (`DOTNET_STARTUP_HOOKS`, this program's `StartupHook`: one thread that wakes once a second; nothing attaches from outside, since a diagnostics session makes the process compile its listener) and read over two {windowSeconds:0}-s windows inside the slice: the **first minute** starts 8 s after the CLI printed `Run … started` (start-up and the worker's first lease round are before it), and the one **after warm-up** ends 10 s before the slice's planned end (the end's verification is after it); ") +
            "both are checked against the slice row's `StartedUtc`/`EndedUtc`. What runs in them beside the one request a second: the slice's watch (cancel poll and progress write, each second), the CLI's state poll (each second; the slices' live figures only when the console shows them), the Durable worker's queue polls and lease renewals, the runtime. " +
            string.Create(Inv, $"**Idle worker**: a LocalTaskHub with the benchmark's orchestrators and activities registered and nothing scheduled, in its own process, {idleSeconds:0} s measured after 10 s to settle. ") +
            "**JIT** is the runtime's own count of the time it spent compiling in the window (`JitInfo.GetCompilationTime`, read in the process): in a young process tiered compilation still recompiles what has become hot (tier 0, then instrumented, then optimized), a warm-up that ends, not a loop. " +
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
        string Ms(Func<CpuWindow, double> of) => Stats.Range(windows.Select(w => of(w) * 1000), "ms", "0.0");
        double loops = Stats.Median(windows.Select(w => w.Loops));
        string verdict = !judged ? "warm-up, not judged" : loops <= Goal ? "met" : "MISSED";
        return string.Create(Inv, $"| {label} | {loads.Min():0}–{loads.Max():0} | {Ms(w => w.Cpu)} | {Ms(w => w.Jit)} | {Ms(w => w.Loops)} | {loops:P2} | {verdict} |");
    }

    /// <summary>CPU seconds per wall-clock second over a window, and of them the JIT's.</summary>
    private sealed record CpuWindow(double Cpu, double Jit)
    {
        public DateTime From { get; init; }

        public DateTime To { get; init; }

        public double Loops => Cpu - Jit;

        public override string ToString() => string.Create(Inv, $"{Cpu * 1000:0.0} ms CPU/s, JIT {Jit * 1000:0.0} ms/s");
    }

    /// <summary>The CLI's CPU over two windows inside the slice: its first minute, and the last minute before the slice's end.</summary>
    private static async Task<(CpuWindow First, CpuWindow Warm)> CliRunAsync(string cliDll, AzuriteServer azurite, double runSeconds, double windowSeconds)
    {
        string dir = Path.Combine(Path.GetTempPath(), "bench-idle-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        string specFile = Path.Combine(dir, "spec.json");
        var spec = OpenLoop(runSeconds);
        await File.WriteAllTextAsync(specFile, JsonSerializer.Serialize(spec, RunSpecParser.Options));
        string samples = Path.Combine(dir, "cpu-samples.txt");
        var psi = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, UseShellExecute = false };
        psi.Environment["DOTNET_STARTUP_HOOKS"] = typeof(StartupHook).Assembly.Location;
        psi.Environment[StartupHook.SamplesVariable] = samples;
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
        var first = await MeasureAsync(samples, window);
        await Task.Delay(scheduled + TimeSpan.FromSeconds(spec.StartDelaySeconds + runSeconds - 10) - window - DateTime.UtcNow);
        var warm = await MeasureAsync(samples, window);
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

    /// <summary>The CLI's CPU and JIT over the next <paramref name="window"/>, from its probe's samples (a second apart).</summary>
    private static async Task<CpuWindow> MeasureAsync(string samples, TimeSpan window)
    {
        var from = (File.Exists(samples) ? CpuSample.LastIn(samples) : null)
            ?? throw new InvalidOperationException($"the CLI's startup hook wrote no CPU samples to {samples}");
        await Task.Delay(window);
        return Between(from, CpuSample.LastIn(samples)!.Value);
    }

    private static CpuWindow Between(CpuSample from, CpuSample to)
    {
        double wall = (to.Utc - from.Utc).TotalSeconds;
        return new CpuWindow((to.Cpu - from.Cpu).TotalSeconds / wall, (to.Jit - from.Jit).TotalSeconds / wall) { From = from.Utc, To = to.Utc };
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
        await using var hub = await BenchmarkTaskHub.StartAsync(results.Target, [target], results, new TaskHubSettings { HubName = "idle" + Guid.NewGuid().ToString("N")[..10] } is var s && maxPollingInterval is { } poll ? s with { MaxPollingInterval = poll } : s);
        // The first lease round and JIT are start-up, not waiting.
        await Task.Delay(TimeSpan.FromSeconds(10));
        var from = CpuSample.Now();
        await Task.Delay(TimeSpan.FromSeconds(seconds));
        var measured = Between(from, CpuSample.Now());
        Console.WriteLine(string.Create(Inv, $"cpu-per-second {measured.Cpu:R} jit-per-second {measured.Jit:R}"));
    }
}
