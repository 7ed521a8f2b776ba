using System.Text.Json;
using StorageBench.Engine;
using StorageBench.Engine.Reports;
using StorageBench.Engine.Statistics;

namespace StorageBench.Cli;

/// <summary>Where a run's reports go (run --out DIR [--force]): never over an earlier run's by accident, and a folder that cannot be written never loses the summary.</summary>
public static class ReportOutput
{
    /// <summary>Why the run must not start: --out names a folder that already holds a summary and --force is not given; null otherwise.</summary>
    public static string? Refusal(string? outDir, bool force)
    {
        string? existing = outDir is null ? null : Path.Combine(outDir, "summary.json");
        return existing is not null && !force && File.Exists(existing)
            ? $"--out: \"{outDir}\" already holds the reports of an earlier run ({existing}); give another folder, or --force to replace them; nothing was started"
            : null;
    }

    /// <summary>
    /// Writes summary.json/.md/.html to <paramref name="outDir"/> and prints the summary as <paramref name="output"/> asks. When the
    /// folder cannot be written the summary is printed all the same, the error says where and why, and the exit code is at least 1
    /// (the reports are missing).
    /// </summary>
    public static async Task<int> ReportAsync(RunSummary summary, string outDir, RunOutput output, TextWriter stdout, TextWriter stderr)
    {
        IReadOnlyList<string>? files = null;
        string? failure = null;
        try
        {
            // Also after Ctrl+C: a canceled run's partial figures are still reported.
            files = await ReportWriter.WriteAsync(summary, outDir, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            failure = ex.Message;
        }
        switch (output)
        {
            case RunOutput.Json:
                await stdout.WriteLineAsync(JsonSerializer.Serialize(summary, JsonDefaults.Options)).ConfigureAwait(false);
                break;
            case RunOutput.Quiet:
                await stdout.WriteLineAsync(ConsoleReport.StatusLine(summary, files?[1] ?? "(not written)")).ConfigureAwait(false);
                break;
            default:
                await stdout.WriteLineAsync().ConfigureAwait(false);
                await stdout.WriteAsync(output == RunOutput.Verbose ? ReportWriter.Markdown(summary) : ConsoleReport.Default(summary)).ConfigureAwait(false);
                if (files is not null)
                {
                    await stdout.WriteLineAsync($"Wrote {string.Join(", ", files)}").ConfigureAwait(false);
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
            await stderr.WriteLineAsync($"error: --out: the reports of run {summary.RunId} could not be written to \"{Path.GetFullPath(outDir)}\": {failure} " +
                "(the summary above is complete; the results table has the run's row)").ConfigureAwait(false);
        }
        int exit = RunCommand.ExitCode(summary);
        return files is null && exit == 0 ? 1 : exit;
    }
}
