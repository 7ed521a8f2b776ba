using System.Diagnostics;
using System.Globalization;
using System.Reflection;

namespace StorageBench.Engine.Measurement;

/// <summary>
/// How busy the driver's machine is at one instant: the 1-minute load average and the machine's CPU
/// counters (/proc/stat) next to this process's own CPU time. Two snapshots give the share of the
/// machine's CPU that other processes (Azurite on loopback included) used in between. Null figures
/// where the platform has no /proc (not Linux).
/// </summary>
/// <param name="BusySeconds">CPU seconds of all cores spent not idle since boot (user, nice, system, irq, softirq, steal).</param>
/// <param name="TotalSeconds">The same plus idle and iowait.</param>
public sealed record MachineSnapshot(double? LoadAverage1m, double? BusySeconds, double? TotalSeconds, double ProcessCpuSeconds)
{
    /// <summary>/proc/stat counts in USER_HZ, 100 per second on every Linux this runs on.</summary>
    private const double TicksPerSecond = 100;

    public static MachineSnapshot Take()
    {
        using var self = Process.GetCurrentProcess();
        double process = self.TotalProcessorTime.TotalSeconds;
        double? load = null, busy = null, total = null;
        try
        {
            if (File.Exists("/proc/loadavg"))
            {
                load = double.Parse(File.ReadAllText("/proc/loadavg").Split(' ')[0], CultureInfo.InvariantCulture);
            }
            if (File.Exists("/proc/stat") && File.ReadLines("/proc/stat").FirstOrDefault(l => l.StartsWith("cpu ", StringComparison.Ordinal)) is { } cpu)
            {
                double[] f = [.. cpu.Split(' ', StringSplitOptions.RemoveEmptyEntries).Skip(1).Take(8).Select(v => double.Parse(v, CultureInfo.InvariantCulture))];
                // user nice system idle iowait irq softirq steal
                busy = (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / TicksPerSecond;
                total = busy + (f[3] + f[4]) / TicksPerSecond;
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or FormatException or IndexOutOfRangeException)
        {
            // An unreadable /proc leaves the figures out; the run itself does not depend on them.
        }
        return new MachineSnapshot(load, busy, total, process);
    }

    /// <summary>
    /// The share (0–1) of the machine's CPU, all cores, that processes other than this one used between
    /// two snapshots; null without /proc or with no time between them.
    /// </summary>
    public static double? OtherProcessesShare(MachineSnapshot start, MachineSnapshot end)
    {
        if (start.BusySeconds is not { } b0 || end.BusySeconds is not { } b1 || start.TotalSeconds is not { } t0 || end.TotalSeconds is not { } t1 || t1 - t0 <= 0)
        {
            return null;
        }
        double other = b1 - b0 - (end.ProcessCpuSeconds - start.ProcessCpuSeconds);
        return Math.Clamp(other / (t1 - t0), 0, 1);
    }
}

/// <summary>Which build of the tool ran: the version and the git commit the SDK embeds in the assembly's informational version.</summary>
public static class ToolVersion
{
    private static readonly string Informational = typeof(ToolVersion).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "unknown";

    /// <summary>E.g. "1.0.0".</summary>
    public static string Version => Informational.Split('+')[0];

    /// <summary>The commit the tool was built from; null when it was built outside a git checkout.</summary>
    public static string? Commit => Informational.Split('+') is [_, var commit, ..] ? commit : null;
}
