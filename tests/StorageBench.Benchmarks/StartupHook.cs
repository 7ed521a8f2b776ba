using System.Globalization;

/// <summary>
/// Section 8's probe, loaded into the measured CLI with DOTNET_STARTUP_HOOKS (which needs this name, in no namespace).
/// Once a second, on a thread of its own, it appends the process's own CPU and JIT time so far to the file named by
/// STORAGEBENCH_CPU_SAMPLES. Nothing attaches from outside: a diagnostics session would make the process compile its
/// listener, and that JIT would count as the process's own (dotnet-counters did: 8 ms/s where the first minute had 3).
/// </summary>
internal static class StartupHook
{
    public const string SamplesVariable = "STORAGEBENCH_CPU_SAMPLES";

    public static void Initialize()
    {
        if (Environment.GetEnvironmentVariable(SamplesVariable) is { Length: > 0 } path)
        {
            new Thread(() => Sample(path)) { IsBackground = true, Name = "cpu samples" }.Start();
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
