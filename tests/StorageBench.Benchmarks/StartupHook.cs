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

/// <summary>
/// A process's resident set (/proc, via Environment.WorkingSet), its GC heap after the last collection, and glibc malloc's
/// bytes held from the system and in use (mallinfo2, every arena and mapped block): what of the resident set is native heap.
/// </summary>
internal readonly record struct MemorySample(DateTime Utc, long ResidentBytes, long GcHeapBytes, long GcCommittedBytes, long MallocHeldBytes, long MallocInUseBytes)
{
    public static MemorySample Now()
    {
        var gc = GC.GetGCMemoryInfo();
        var malloc = MallInfo.Read();
        return new(DateTime.UtcNow, Environment.WorkingSet, gc.HeapSizeBytes, gc.TotalCommittedBytes, malloc.Held, malloc.InUse);
    }

    /// <summary>Every whole line of a samples file.</summary>
    public static List<MemorySample> AllIn(string path)
    {
        using var reader = new StreamReader(new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite));
        string[] lines = reader.ReadToEnd().Split('\n');
        return [.. lines[..^1].Select(Parse)];
    }

    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Utc.Ticks} {ResidentBytes} {GcHeapBytes} {GcCommittedBytes} {MallocHeldBytes} {MallocInUseBytes}");

    private static MemorySample Parse(string line)
    {
        long[] v = [.. line.Split(' ').Select(x => long.Parse(x, CultureInfo.InvariantCulture))];
        return v.Length == 6 ? new(new DateTime(v[0], DateTimeKind.Utc), v[1], v[2], v[3], v[4], v[5]) : throw new FormatException($"not a memory sample: {line}");
    }
}

/// <summary>glibc's mallinfo2(): bytes malloc holds from the system (arenas and mapped blocks) and bytes in use; zeros elsewhere.</summary>
internal static class MallInfo
{
    public static (long Held, long InUse) Read()
    {
        try
        {
            var m = MallInfo2();
            return ((long)(m.Arena + m.MappedBytes), (long)(m.InUse + m.MappedBytes));
        }
        catch (Exception ex) when (ex is EntryPointNotFoundException or DllNotFoundException)
        {
            return (0, 0);
        }
    }

    // struct mallinfo2 of glibc's malloc.h: ten size_t fields, of which these three are read.
    [System.Runtime.InteropServices.StructLayout(System.Runtime.InteropServices.LayoutKind.Sequential)]
    private struct Info
    {
        public nuint Arena, Ordblks, Smblks, Hblks, MappedBytes, Usmblks, Fsmblks, InUse, Fordblks, Keepcost;
    }

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "mallinfo2")]
    private static extern Info MallInfo2();
}
