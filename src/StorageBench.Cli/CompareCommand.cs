using System.CommandLine;
using System.Globalization;
using System.Text.Json;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.Planning;

namespace StorageBench.Cli;

/// <summary>`storagebench compare BASELINE CANDIDATE`: two runs metric by metric, each change against the runs' own noise.</summary>
public static class CompareCommand
{
    private const string JudgeDifferentSpecs = "--judge-different-specs";

    /// <summary>The CLI's way to have runs of different specs judged, as the comparison's note says it.</summary>
    public const string JudgeAnyway = "give " + JudgeDifferentSpecs;

    public static Command Create(CliContext cli)
    {
        const string run = "a run id in the results table (of --connection-string or the STORAGEBENCH_* settings; without them, a local run's, in the hub store), or a summary.json file (or its out/<runId> directory)";
        var baseline = new Argument<string>("BASELINE") { Description = run };
        var candidate = new Argument<string>("CANDIDATE") { Description = run };
        var connectionString = CliTargets.ConnectionStringOption("the account whose results table holds the run ids (default: the STORAGEBENCH_RESULTS_* or STORAGEBENCH_HUB_CONNECTION_STRING setting; with neither, the hub store, where local runs are)");
        var failIfSlower = new Option<double?>("--fail-if-slower")
        {
            Description = "exit 1 when a throughput is lower by more than PERCENT and beyond noise", HelpName = "PERCENT",
            CustomParser = r => UsageErrors.ParseEach(r, t => double.TryParse(t, NumberStyles.Float, CultureInfo.InvariantCulture, out double p) && p is > 0 and < 100
                ? p : throw new FormatException($"--fail-if-slower: \"{t}\" must be a percentage above 0 and below 100, e.g. 10")) is [var p] ? p : null,
        };
        var outFile = new Option<string?>("--out") { Description = "also write the comparison as Markdown to FILE.md", HelpName = "FILE.md" };
        var judgeDifferentSpecs = new Option<bool>(JudgeDifferentSpecs) { Description = "judge runs whose specs differ (they are named, and not judged, otherwise)" };
        var command = new Command("compare", "Compare two runs metric by metric (sweeps step by step), each change against the runs' own noise. " +
            "Steps too short to resolve are not judged (docs/comparing.md). Exit 0 compared, 1 slower than --fail-if-slower allows, 2 bad arguments, " +
            "3 --fail-if-slower could not judge a throughput (the line says what to change).")
        {
            baseline, candidate, connectionString, failIfSlower, outFile, judgeDifferentSpecs,
        };
        command.SetAction((r, ct) => RunAsync(r.GetValue(baseline)!, r.GetValue(candidate)!, r.GetValue(connectionString), r.GetValue(failIfSlower), r.GetValue(outFile),
            cli.Stdout, cli.Stderr, ct, r.GetValue(judgeDifferentSpecs)));
        return command;
    }

    /// <summary>Compares two runs (ids in the results table, or summary.json files); 1 when --fail-if-slower trips, 2 on a bad argument.</summary>
    public static async Task<int> RunAsync(string baselineArg, string candidateArg, string? connectionString, double? failIfSlower, string? outFile,
        TextWriter stdout, TextWriter stderr, CancellationToken ct, bool judgeDifferentSpecs = false)
    {
        var given = CliTargets.ResultsTarget(connectionString, out var badTarget);
        if (badTarget is not null)
        {
            await stderr.WriteLineAsync("error: " + badTarget).ConfigureAwait(false);
            return CliApp.UsageError;
        }
        // Without an account, a run id is a local run's: its results are in the hub store, opened only when an argument is a run id.
        using var hub = given is null && (IsRunId(baselineArg) || IsRunId(candidateArg)) ? await ControlPlane.LocalAsync(stdout, ct).ConfigureAwait(false) : null;
        using var store = given is not null ? new ResultsTableStore(given) : hub is not null ? CliTargets.ResultsStore(hub) : null;
        string where = hub is null ? "" : $" in {hub.Where}";
        RunFigures baseline, candidate;
        try
        {
            baseline = await LoadRunAsync("baseline", baselineArg, store, where, ct).ConfigureAwait(false);
            candidate = await LoadRunAsync("candidate", candidateArg, store, where, ct).ConfigureAwait(false);
        }
        catch (FormatException ex)
        {
            await stderr.WriteLineAsync("error: " + ex.Message).ConfigureAwait(false);
            return CliApp.UsageError;
        }
        // Earlier runs of the scenario, where the results table has them, give the run-to-run spread (docs/comparing.md, "The rule").
        var history = store is null || baseline.Scenario is null ? null : await store.RunToRunSpreadAsync(baseline.Scenario, [baseline.RunId, candidate.RunId], ct, baseline.Spec).ConfigureAwait(false);
        var comparison = RunComparison.Compare(baseline, candidate, judgeDifferentSpecs: judgeDifferentSpecs, history: history);
        if (comparison.Workloads.Count == 0)
        {
            await stderr.WriteLineAsync($"error: candidate: \"{candidateArg}\" has no workload or step in common with the baseline, so nothing can be compared " +
                $"(baseline: {string.Join(", ", comparison.OnlyInBaseline)}; candidate: {string.Join(", ", comparison.OnlyInCandidate)})").ConfigureAwait(false);
            return CliApp.UsageError;
        }
        if (outFile is not null)
        {
            try
            {
                await File.WriteAllTextAsync(outFile, ComparisonReport.Markdown(comparison, JudgeAnyway), ct).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                await stderr.WriteLineAsync($"error: --out: \"{outFile}\" cannot be written: {ex.Message}").ConfigureAwait(false);
                return CliApp.UsageError;
            }
        }
        await stdout.WriteLineAsync(ComparisonReport.ConsoleTable(comparison, JudgeAnyway)).ConfigureAwait(false);
        if (outFile is not null)
        {
            await stdout.WriteLineAsync($"Wrote {outFile}").ConfigureAwait(false);
        }
        if (failIfSlower is not { } limit)
        {
            return 0;
        }
        var slower = comparison.SlowerBy(limit);
        foreach (var w in slower)
        {
            await stdout.WriteLineAsync(string.Create(CultureInfo.InvariantCulture,
                $"--fail-if-slower {limit:0.##}: {w.Label} throughput {w.Throughput.RelativeChange:+0.0%;-0.0%}, lower by more than {limit:0.##}% and beyond noise (±{w.Throughput.Band:0.0%})")).ConfigureAwait(false);
        }
        if (slower.Count > 0)
        {
            return 1;
        }
        // A gate that cannot judge does not pass: one line naming what to change, and its own exit code.
        if (CannotJudge(comparison) is { } why)
        {
            await stderr.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"--fail-if-slower {limit:0.##}: could not judge {why}")).ConfigureAwait(false);
            return CliApp.CouldNotJudge;
        }
        await stdout.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"--fail-if-slower {limit:0.##}: no throughput is lower by more than {limit:0.##}% beyond noise")).ConfigureAwait(false);
        return 0;
    }

    /// <summary>What the gate could not judge and what to change ("tableInsert throughput: ...; set durationSeconds ≥ 7"); null when every throughput was judged.</summary>
    public static string? CannotJudge(RunComparison comparison)
    {
        var unjudged = comparison.Workloads.Where(w => w.Throughput.Judgement is not { Judged: true }).ToList();
        if (unjudged.Count == 0)
        {
            return null;
        }
        string first = $"{unjudged[0].Label} throughput: {unjudged[0].Throughput.NotJudgedReason ?? "a side has no throughput"}";
        return unjudged.Count == 1 ? first : $"{first} (and {unjudged.Count - 1} more workload(s) or step(s))";
    }

    private static bool IsSummaryPath(string argument) => File.Exists(argument) || Directory.Exists(argument);

    private static bool IsRunId(string argument) => !IsSummaryPath(argument) && Planner.IsValidRunId(argument);

    /// <summary>A summary.json file (or the directory holding one), else a run id in the results table; a FormatException names the argument, its value and the rule.</summary>
    /// <param name="store">The results tables (the account's, or the hub store's); null only when neither argument is a run id.</param>
    /// <param name="where">Where those are, for the message when the run is not there ("" for an account).</param>
    private static async Task<RunFigures> LoadRunAsync(string role, string argument, ResultsTableStore? store, string where, CancellationToken ct)
    {
        if (IsSummaryPath(argument))
        {
            try
            {
                return RunFigures.ReadSummaryFile(argument);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or JsonException)
            {
                throw new FormatException($"{role}: \"{argument}\" cannot be read as a summary.json: {ex.Message}");
            }
        }
        if (!Planner.IsValidRunId(argument))
        {
            throw new FormatException($"{role}: \"{argument}\" is neither a summary.json file that exists nor a run id (lowercase letters, digits and dashes)");
        }
        return await store!.LoadRunFiguresAsync(argument, ct).ConfigureAwait(false)
            ?? throw new FormatException($"{role}: \"{argument}\" is no run in the results table ({ResultsTableStore.DefaultRunsTable}{where}) and no summary.json file; give a stored run id or a summary.json path");
    }
}
