using System.Globalization;

/// <summary>
/// Sections 8's and the soak's probe, loaded into the measured CLI with DOTNET_STARTUP_HOOKS (which needs this name, in
/// no namespace). Once a second, on a thread of its own, it appends the process's own CPU and JIT time so far to the file
/// named by STORAGEBENCH_CPU_SAMPLES; every STORAGEBENCH_MEMORY_SAMPLE_SECONDS (default 10) it appends its resident set
/// and GC heap to the file named by STORAGEBENCH_MEMORY_SAMPLES. Nothing attaches from outside: a diagnostics session
/// would make the process compile its listener, and that JIT would count as the process's own (dotnet-counters did:
/// 8 ms/s where the first minute had 3).
/// </summary>
internal static class StartupHook
{
    public const string SamplesVariable = "STORAGEBENCH_CPU_SAMPLES";
    public const string MemorySamplesVariable = "STORAGEBENCH_MEMORY_SAMPLES";
    public const string MemoryEveryVariable = "STORAGEBENCH_MEMORY_SAMPLE_SECONDS";

    public static void Initialize()
    {
        if (Environment.GetEnvironmentVariable(SamplesVariable) is { Length: > 0 } path)
        {
            new Thread(() => Sample(path)) { IsBackground = true, Name = "cpu samples" }.Start();
        }
        if (Environment.GetEnvironmentVariable(MemorySamplesVariable) is { Length: > 0 } memoryPath)
        {
            double every = double.TryParse(Environment.GetEnvironmentVariable(MemoryEveryVariable), CultureInfo.InvariantCulture, out double s) && s > 0 ? s : 10;
            new Thread(() => SampleMemory(memoryPath, TimeSpan.FromSeconds(every))) { IsBackground = true, Name = "memory samples" }.Start();
        }
    }

    private static void SampleMemory(string path, TimeSpan every)
    {
        using var file = new StreamWriter(new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.ReadWrite));
        while (true)
        {
            file.WriteLine(MemorySample.Now().ToString());
            file.Flush();
            Thread.Sleep(every);
        }
    }

    private static void Sample(string path)
    {
        using var file = new StreamWriter(new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.ReadWrite));
        while (true)
        {
            file.WriteLine(CpuSample.Now().ToString());
            file.Flush();
            Thread.Sleep(1000);
        }
    }
}

/// <summary>A process's CPU time (user + system) and the part of it its JIT spent compiling, at one instant.</summary>
internal readonly record struct CpuSample(DateTime Utc, TimeSpan Cpu, TimeSpan Jit)
{
    public static CpuSample Now() => new(DateTime.UtcNow, Environment.CpuUsage.TotalTime, System.Runtime.JitInfo.GetCompilationTime());

    /// <summary>The last whole line of a samples file; null before the first.</summary>
    public static CpuSample? LastIn(string path)
    {
        using var reader = new StreamReader(new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite));
        string[] lines = reader.ReadToEnd().Split('\n');
        // The last element is what follows the last newline: empty, or a line still being written.
        return lines.Length >= 2 ? Parse(lines[^2]) : null;
    }

    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Utc.Ticks} {Cpu.Ticks} {Jit.Ticks}");

    private static CpuSample Parse(string line) => line.Split(' ') is [var utc, var cpu, var jit]
        ? new(new DateTime(long.Parse(utc, CultureInfo.InvariantCulture), DateTimeKind.Utc), TimeSpan.FromTicks(long.Parse(cpu, CultureInfo.InvariantCulture)), TimeSpan.FromTicks(long.Parse(jit, CultureInfo.InvariantCulture)))
        : throw new FormatException($"not a CPU sample: {line}");
}

/// <summary>A process's resident set (/proc, via Environment.WorkingSet) and its GC heap after the last collection, at one instant.</summary>
internal readonly record struct MemorySample(DateTime Utc, long ResidentBytes, long GcHeapBytes, long GcCommittedBytes)
{
    public static MemorySample Now()
    {
        var gc = GC.GetGCMemoryInfo();
        return new(DateTime.UtcNow, Environment.WorkingSet, gc.HeapSizeBytes, gc.TotalCommittedBytes);
    }

    /// <summary>Every whole line of a samples file.</summary>
    public static List<MemorySample> AllIn(string path)
    {
        using var reader = new StreamReader(new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite));
        string[] lines = reader.ReadToEnd().Split('\n');
        return [.. lines[..^1].Select(Parse)];
    }

    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Utc.Ticks} {ResidentBytes} {GcHeapBytes} {GcCommittedBytes}");

    private static MemorySample Parse(string line) => line.Split(' ') is [var utc, var rss, var heap, var committed]
        ? new(new DateTime(long.Parse(utc, CultureInfo.InvariantCulture), DateTimeKind.Utc), long.Parse(rss, CultureInfo.InvariantCulture),
            long.Parse(heap, CultureInfo.InvariantCulture), long.Parse(committed, CultureInfo.InvariantCulture))
        : throw new FormatException($"not a memory sample: {line}");
}
