using System.Globalization;

/// <summary>
/// Sections 8's and the soak's probe, loaded into the measured CLI with DOTNET_STARTUP_HOOKS (which needs this name, in
/// no namespace). Once a second, on a thread of its own, it appends the process's own CPU and JIT time so far to the file
/// named by STORAGEBENCH_CPU_SAMPLES; every STORAGEBENCH_MEMORY_SAMPLE_SECONDS (default 10) it appends its memory (MemorySample: resident
/// set and its parts, GC heap, malloc, threads) to the file named by STORAGEBENCH_MEMORY_SAMPLES. Nothing attaches from outside: a diagnostics session
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
/// A process's resident set (/proc, via Environment.WorkingSet), its GC heap after the last collection, glibc malloc's
/// bytes held from the system and in use (mallinfo2, every arena and mapped block): what of the resident set is native
/// heap; and what the rest may be: its threads (each a stack), the resident set's anonymous, file-backed and shared parts
/// (ProcStatus) and the methods its JIT has compiled.
/// </summary>
internal readonly record struct MemorySample(DateTime Utc, long ResidentBytes, long GcHeapBytes, long GcCommittedBytes, long MallocHeldBytes, long MallocInUseBytes,
    long Threads, long AnonymousBytes, long FileBytes, long SharedBytes, long JitMethods)
{
    public static MemorySample Now()
    {
        var gc = GC.GetGCMemoryInfo();
        var malloc = MallInfo.Read();
        var proc = ProcStatus.Read();
        return new(DateTime.UtcNow, Environment.WorkingSet, gc.HeapSizeBytes, gc.TotalCommittedBytes, malloc.Held, malloc.InUse,
            proc.Threads, proc.AnonymousBytes, proc.FileBytes, proc.SharedBytes, System.Runtime.JitInfo.GetCompiledMethodCount());
    }

    /// <summary>Every whole line of a samples file.</summary>
    public static List<MemorySample> AllIn(string path)
    {
        using var reader = new StreamReader(new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite));
        string[] lines = reader.ReadToEnd().Split('\n');
        return [.. lines[..^1].Select(Parse)];
    }

    public override string ToString() => string.Create(CultureInfo.InvariantCulture,
        $"{Utc.Ticks} {ResidentBytes} {GcHeapBytes} {GcCommittedBytes} {MallocHeldBytes} {MallocInUseBytes} {Threads} {AnonymousBytes} {FileBytes} {SharedBytes} {JitMethods}");

    private static MemorySample Parse(string line)
    {
        long[] v = [.. line.Split(' ').Select(x => long.Parse(x, CultureInfo.InvariantCulture))];
        return v.Length == 11 ? new(new DateTime(v[0], DateTimeKind.Utc), v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]) : throw new FormatException($"not a memory sample: {line}");
    }
}

/// <summary>
/// What Linux says of this process in /proc/self/status (one read): its threads and its resident set's split, anonymous
/// (heaps, stacks, the GC's memory), file-backed (code and data of the libraries and assemblies) and shared memory (the
/// runtime's W^X double mapping: JIT code, stubs and loader heaps); zeros elsewhere.
/// </summary>
internal readonly record struct ProcStatus(long Threads, long AnonymousBytes, long FileBytes, long SharedBytes)
{
    public static ProcStatus Read()
    {
        if (!File.Exists("/proc/self/status"))
        {
            return default;
        }
        // "Threads:\t102", "RssAnon:\t  77972 kB": the number after the colon, in kB where a unit follows.
        var fields = File.ReadLines("/proc/self/status").Select(l => l.Split(':', 2)).Where(p => p.Length == 2)
            .ToDictionary(p => p[0], p => p[1].Trim(), StringComparer.Ordinal);
        long Number(string key) => fields.TryGetValue(key, out string? v) ? long.Parse(v.Split(' ')[0], CultureInfo.InvariantCulture) : 0;
        return new(Number("Threads"), Number("RssAnon") * 1024, Number("RssFile") * 1024, Number("RssShmem") * 1024);
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
