using StorageBench.Engine.Comparison;

namespace StorageBench.Cli;

/// <summary>
/// `storagebench run --nightly`: the Function App's nightly timer's run (RunStarter.StartNightlyAsync) from the command line,
/// against any account: leftovers older than <see cref="RunStarter.LeftoverAgeHours"/> deleted first, then the run, judged
/// against the scenario's trailing runs in the results table, the verdict stored on the run row; exit codes as the gates'.
/// </summary>
/// <remarks>
/// The instance id is a fresh run id, not the timer's one per UTC date: a nightly run started by hand (a retry, a second
/// account, a CI pipeline) must run, not find the day's instance and start nothing.
/// </remarks>
public static class NightlyCheck
{
    public static Task<RunStarter.StartResult> StartAsync(RunStarter starter, RunSpec spec, bool nightly, string runId, CancellationToken ct) =>
        nightly ? starter.StartAsync(spec, "local-cli-nightly", runId, ct, checkRegression: true, cleanupOlderThanHours: RunStarter.LeftoverAgeHours)
            : starter.StartAsync(spec, "local-cli", runId, ct);

    /// <summary>
    /// The exit code of a nightly run: the run's own when it failed (1, 2); else 1 regressed, 0 within noise or improved, 3 not judged
    /// (too few earlier runs, too short a run, or no verdict), with one line saying which and why.
    /// </summary>
    public static async Task<int> ExitCodeAsync(RunSummary summary, int runExit, TextWriter stdout, TextWriter stderr)
    {
        if (runExit != 0)
        {
            await stderr.WriteLineAsync($"nightly: not judged: run {summary.RunId} is {summary.Status}{(summary.Status == RunStatus.Completed ? " but unverified or unreported" : "")}; " +
                "only a completed, verified run is judged").ConfigureAwait(false);
            return runExit;
        }
        if (summary.Regression is not { } r)
        {
            string why = summary.Errors.FirstOrDefault(e => e.StartsWith("regression check", StringComparison.Ordinal)) ?? "the run has no verdict (a sweep or saturation search is not judged nightly)";
            await stderr.WriteLineAsync($"nightly: {VerdictWords.NotJudged}: {why}").ConfigureAwait(false);
            return CliApp.CouldNotJudge;
        }
        switch (r.Outcome)
        {
            case ChangeOutcome.Worse:
                await stderr.WriteLineAsync($"nightly: {r.Verdict} against {r.BaselineRuns} earlier run(s): {r.Reason}").ConfigureAwait(false);
                return 1;
            case ChangeOutcome.NoChange or ChangeOutcome.Better:
                await stdout.WriteLineAsync($"nightly: {r.Verdict} against {r.BaselineRuns} earlier run(s): {r.Reason}").ConfigureAwait(false);
                return 0;
            default:
                await stderr.WriteLineAsync($"nightly: {r.Verdict}: {r.Reason}").ConfigureAwait(false);
                return CliApp.CouldNotJudge;
        }
    }
}
