using System.Text.Json;
using StorageBench.Engine;
using StorageBench.Engine.Reports;

namespace StorageBench.Cli;

/// <summary>Where a run's reports go (run --out DIR [--force]): never over an earlier run's by accident, and a folder that cannot be written never loses the summary.</summary>
public static class ReportOutput
{
    /// <summary>
    /// Why the run must not start, checked before anything starts: --out names a folder that already holds a summary and --force is
    /// not given, or the folder (default: out/) cannot be created or written; null otherwise. Leaves no folder it created behind.
    /// </summary>
    public static string? Refusal(string? outDir, bool force)
    {
        string? existing = outDir is null ? null : Path.Combine(outDir, "summary.json");
        if (existing is not null && !force && File.Exists(existing))
        {
            return $"--out: \"{outDir}\" already holds the reports of an earlier run ({existing}); give another folder, or --force to replace them; nothing was started";
        }
        string dir = outDir ?? "out";
        return WriteProblem(dir) is { } problem
            ? outDir is null
                ? $"--out: the default folder \"{Path.GetFullPath(dir)}\" cannot be written ({problem}); give --out DIR, a folder you can write to; nothing was started"
                : $"--out: \"{outDir}\" cannot be written ({problem}); give a folder you can write to; nothing was started"
            : null;
    }

    /// <summary>Why files cannot be written in <paramref name="dir"/> (created if missing, then removed again if it was); null when they can.</summary>
    private static string? WriteProblem(string dir)
    {
        bool created = !Directory.Exists(dir);
        try
        {
            Directory.CreateDirectory(dir);
            string probe = Path.Combine(dir, $".storagebench-write-check-{Environment.ProcessId}");
            File.WriteAllText(probe, "");
            File.Delete(probe);
            return null;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or NotSupportedException or ArgumentException)
        {
            return ex.Message;
        }
        finally
        {
            if (created && Directory.Exists(dir) && !Directory.EnumerateFileSystemEntries(dir).Any())
            {
                Directory.Delete(dir);
            }
        }
    }

    /// <summary>Where the reports go when --out fails late (after the check): a folder of their own under the system's temp folder.</summary>
    public static string FallbackDirectory(string runId) => Path.Combine(Path.GetTempPath(), "storagebench", runId);

    /// <summary>
    /// Writes summary.json/.md/.html to <paramref name="outDir"/> and prints the summary as <paramref name="output"/> asks. When the
    /// folder cannot be written the summary is printed all the same, the error says where and why, and the exit code is at least 1
    /// (the reports are missing).
    /// </summary>
    public static async Task<int> ReportAsync(RunSummary summary, string outDir, RunOutput output, TextWriter stdout, TextWriter stderr)
    {
        IReadOnlyList<string>? files = null;
        string? failure = null;
        IReadOnlyList<string>? fallback = null;
        try
        {
            // Also after Ctrl+C: a canceled run's partial figures are still reported.
            files = await ReportWriter.WriteAsync(summary, outDir, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            failure = ex.Message;
            try
            {
                // Never lose the summary: the same files in a folder of their own, and the error says where.
                fallback = await ReportWriter.WriteAsync(summary, FallbackDirectory(summary.RunId), CancellationToken.None).ConfigureAwait(false);
            }
            catch (Exception again) when (again is IOException or UnauthorizedAccessException)
            {
                failure += $" (nor to {FallbackDirectory(summary.RunId)}: {again.Message})";
            }
        }
        switch (output)
        {
            case RunOutput.Json:
                await stdout.WriteLineAsync(JsonSerializer.Serialize(summary, JsonDefaults.Options)).ConfigureAwait(false);
                break;
            case RunOutput.Quiet:
                await stdout.WriteLineAsync(ConsoleReport.StatusLine(summary, files?[1] ?? fallback?[1] ?? "(not written)")).ConfigureAwait(false);
                break;
            default:
                await stdout.WriteLineAsync().ConfigureAwait(false);
                await stdout.WriteAsync(output == RunOutput.Verbose ? ReportWriter.Markdown(summary) : ConsoleReport.Default(summary)).ConfigureAwait(false);
                if (files is not null)
                {
                    // The folder once, then the file names: three full paths passed 120 columns.
                    await stdout.WriteLineAsync($"Wrote {string.Join(", ", files.Select(Path.GetFileName))} to {Path.GetDirectoryName(files[0])}{Path.DirectorySeparatorChar}")
                        .ConfigureAwait(false);
                }
                using (var self = System.Diagnostics.Process.GetCurrentProcess())
                {
                    // The driver's own footprint (Azurite is a separate process): memory must not grow with run length.
                    await stdout.WriteLineAsync($"Driver peak working set: {self.PeakWorkingSet64 / 1_048_576.0:0.0} MiB").ConfigureAwait(false);
                }
                break;
        }
        if (files is null)
        {
            string kept = fallback is null ? "the summary above is complete; the results table has the run's row"
                : $"they were written to {Path.GetDirectoryName(fallback[0])} instead";
            await stderr.WriteLineAsync($"error: --out: the reports of run {summary.RunId} could not be written to \"{Path.GetFullPath(outDir)}\": {failure} " +
                $"({kept})").ConfigureAwait(false);
        }
        int exit = RunCommand.ExitCode(summary);
        return files is null && exit == 0 ? 1 : exit;
    }
}
