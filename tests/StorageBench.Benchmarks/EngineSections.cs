using System.Globalization;

namespace StorageBench.Benchmarks;

/// <summary>
/// Sections 7 (what the engine costs at a run's ends) and 8 (CPU while a run waits): run by a plain
/// `./scripts/benchmark.sh` after the others, or alone by `./scripts/benchmark.sh --engine-only`.
/// </summary>
internal static class EngineSections
{
    /// <summary>This program's modes for these sections; false when <paramref name="args"/> is none of them.</summary>
    public static async Task<bool> TryRunAsync(string[] args)
    {
        switch (args)
        {
            case ["idle-worker", var connection, var seconds, .. var poll]:
                // An optional MaxPollingInterval in seconds: the experiment behind TaskHubSettings' default.
                await IdleCostSection.IdleWorkerModeAsync(connection, double.Parse(seconds, CultureInfo.InvariantCulture),
                    poll is [var p] ? TimeSpan.FromSeconds(double.Parse(p, CultureInfo.InvariantCulture)) : null);
                return true;
            case ["engine-cost", var root, var reps]:
                // Section 7 alone, printed (for an A/B of an engine setting: run it under each, alternated).
                Console.WriteLine(await EngineCostSection.WriteAsync(root, int.Parse(reps, CultureInfo.InvariantCulture)));
                return true;
            case ["engine", var cliDll, var output]:
                // Sections 7 and 8 alone, in place of those the file has; every other section stays as it was measured.
                string existing = File.Exists(output) ? await File.ReadAllTextAsync(output) : "";
                string sections = await WriteAsync(cliDll, output);
                int heading = sections.IndexOf("\n\n", sections.IndexOf("## 7.", StringComparison.Ordinal), StringComparison.Ordinal) + 2;
                string dated = sections[..heading] + $"Measured by `./scripts/benchmark.sh --engine-only` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC; the other sections are from the runs they name.\n\n" + sections[heading..];
                await File.WriteAllTextAsync(output, BenchmarksFile.Splice(existing, dated));
                return true;
            case ["idle", var cliDll, var output, .. var reps]:
                // Section 8 alone (after a change to what runs while a run waits), in place of the one the file has; section 7 stays.
                string file = await File.ReadAllTextAsync(output);
                string idle = await IdleCostSection.WriteAsync(cliDll, reps is [var r] ? int.Parse(r, CultureInfo.InvariantCulture) : 3);
                int idleHeading = idle.IndexOf("\n\n", StringComparison.Ordinal) + 2;
                await File.WriteAllTextAsync(output, BenchmarksFile.Splice(file, idle[..idleHeading] +
                    $"Measured by `StorageBench.Benchmarks idle` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC, after section 7.\n\n" + idle[idleHeading..]));
                return true;
            default:
                return false;
        }
    }

    /// <summary>Sections 7 and 8, each starting with a blank line; <paramref name="output"/> is BENCHMARKS.md at the repository's root.</summary>
    public static async Task<string> WriteAsync(string cliDll, string output)
    {
        string root = Path.GetDirectoryName(Path.GetFullPath(output))!;
        string engine = await EngineCostSection.WriteAsync(root);
        string idle = await IdleCostSection.WriteAsync(cliDll);
        return "\n" + engine + "\n" + idle;
    }
}
