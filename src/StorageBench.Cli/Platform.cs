using System.Diagnostics;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace StorageBench.Cli;

/// <summary>
/// All the CLI asks of the operating system beyond .NET, in one place: Linux, with <c>setsid</c> and <c>sh</c> (each
/// Azurite it manages runs in a session of its own), util-linux <c>flock</c> (the hub store's wrapper waits on it) and
/// libc's <c>flock(2)</c> (the hub store's users hold it). Anywhere else the CLI refuses in one line before it starts.
/// </summary>
public static class Platform
{
    /// <summary>What the CLI needs, as the README states it.</summary>
    public const string Needs = "Linux, with setsid, sh, util-linux flock and libc's flock(2)";

    /// <summary>The one line the CLI says before it exits where it cannot run; null on Linux.</summary>
    public static string? Refusal() => Refusal(OperatingSystem.IsLinux(), RuntimeInformation.OSDescription);

    /// <param name="linux">Whether this is Linux.</param>
    /// <param name="system">The system's own description (e.g. "Microsoft Windows 10.0.22631"), named in the line.</param>
    public static string? Refusal(bool linux, string system)
    {
        // One line whatever the description holds: its words, single-spaced.
        string named = string.Join(' ', system.Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries));
        return linux ? null : $"error: storagebench needs {Needs}; this system is {(named.Length > 0 ? named : "unnamed")} (on Windows, run it inside WSL 2)";
    }

    /// <summary>The exit code of that refusal: this machine, not the input.</summary>
    public const int UnsupportedExitCode = 1;

    /// <summary>
    /// <c>setsid [-w] sh -c SCRIPT sh ARGS…</c>: the script in a session of its own, so a terminal's Ctrl+C (SIGINT to the
    /// foreground process group) reaches only the CLI, which stops what it started itself. <paramref name="waitForIt"/>: setsid
    /// waits for the script and exits with its status (so the process handle is the script's lifetime).
    /// </summary>
    public static ProcessStartInfo ShellInOwnSession(string script, IEnumerable<string> args, bool waitForIt)
    {
        var psi = new ProcessStartInfo("setsid") { UseShellExecute = false };
        foreach (string arg in (waitForIt ? ["-w"] : Array.Empty<string>()).Concat(["sh", "-c", script, "sh"]).Concat(args))
        {
            psi.ArgumentList.Add(arg);
        }
        return psi;
    }

    /// <summary>flock(2) on <paramref name="file"/> without waiting, exclusive or shared; false while another process holds it the other way.</summary>
    public static bool TryLock(SafeFileHandle file, bool exclusive) => Flock((int)file.DangerousGetHandle(), (exclusive ? LockExclusive : LockShared) | LockNoWait) == 0;

    /// <summary>SIGTERM to every process of the group <paramref name="leader"/> leads (a script <see cref="ShellInOwnSession"/> started); false when none is left.</summary>
    public static bool TerminateGroup(int leader) => Kill(-leader, SigTerm) == 0;

    private const int SigTerm = 15;

    [DllImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static extern int Kill(int pid, int signal);

    private const int LockShared = 1;
    private const int LockExclusive = 2;
    private const int LockNoWait = 4;

    [DllImport("libc", EntryPoint = "flock", SetLastError = true)]
    private static extern int Flock(int fd, int operation);
}
