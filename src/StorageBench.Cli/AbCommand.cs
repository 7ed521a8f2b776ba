using System.CommandLine;
using System.Globalization;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Reports;

namespace StorageBench.Cli;

/// <summary>What `storagebench ab` was asked to do.</summary>
/// <param name="Rounds">Runs of each side; at least <see cref="ChangeRule.MinRoundsASide"/> (the fewest that can give a 95 % interval).</param>
/// <param name="Order">"alternate": baseline first in odd rounds, candidate first in even ones (ABBA); "random": a coin flip per round.</param>
/// <param name="ThresholdPercent">A change inside ±this is not claimed even when the interval excludes 1.0.</param>
/// <param name="FailIfSlowerPercent">Exit 1 when the throughput interval lies wholly below 1 − this.</param>
/// <param name="RunsDirectory">Where each run's summary.json/md/html go (one directory per run id).</param>
public sealed record AbOptions(string BaselineSpec, string CandidateSpec, int Rounds = AbOptions.DefaultRounds, string Order = "alternate", int? Seed = null,
    double ThresholdPercent = AbOptions.DefaultThresholdPercent, double? FailIfSlowerPercent = null, string? OutFile = null, string RunsDirectory = "out")
{
    public const int DefaultRounds = 6;
    public const int MaxRounds = 50;
    public const double DefaultThresholdPercent = 2;
}

/// <summary>
/// `storagebench ab`: baseline and candidate run alternately on one target, round after round, and the
/// candidate/baseline ratio of each figure is judged over the rounds with a rank-based 95 % interval
/// (<see cref="RatioInterval"/>). Alternation is what makes it fair on a shared machine: both sides
/// meet the same drift and the same neighbours, so what differs between them is the spec.
/// </summary>
public static partial class AbCommand
{
    public static Command Create(CliContext cli)
    {
        static double Percent(string option, string text) => double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double p) && p is >= 0 and < 100
            ? p : throw new FormatException($"{option}: \"{text}\" must be a percentage from 0 to below 100, e.g. 2");
        var baselineSpec = new Option<string?>("--baseline") { Description = "the baseline run spec JSON (required)", HelpName = "SPEC" };
        var candidateSpec = new Option<string?>("--candidate") { Description = "the candidate run spec JSON (required)", HelpName = "SPEC" };
        var rounds = UsageErrors.ParsedOption("--rounds", "N", $"runs of each side, from {ChangeRule.MinRoundsASide} to {AbOptions.MaxRounds} (default {AbOptions.DefaultRounds})",
            t => int.TryParse(t, NumberStyles.None, CultureInfo.InvariantCulture, out int n) && n >= ChangeRule.MinRoundsASide && n <= AbOptions.MaxRounds ? n
                : throw new FormatException($"--rounds: \"{t}\" must be a whole number from {ChangeRule.MinRoundsASide} to {AbOptions.MaxRounds} " +
                    $"(fewer than {ChangeRule.MinRoundsASide} rounds a side cannot give a 95 % interval)"));
        var order = new Option<string?>("--order")
        {
            Description = "alternate: ABBA rounds (default); random: a coin flip per round", HelpName = "alternate|random",
            CustomParser = r => UsageErrors.ParseEach(r, t => t is "alternate" or "random" ? t : throw new FormatException($"--order: \"{t}\" must be alternate or random")) is [var o] ? o : null,
        };
        var seed = UsageErrors.ParsedOption("--seed", "N", "seed of --order random",
            t => int.TryParse(t, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int s) ? s : throw new FormatException($"--seed: \"{t}\" must be a whole number"));
        var threshold = UsageErrors.ParsedOption("--threshold", "PERCENT", $"a change inside ±PERCENT is not claimed (default {AbOptions.DefaultThresholdPercent})", t => Percent("--threshold", t));
        var failIfSlower = UsageErrors.ParsedOption("--fail-if-slower", "PERCENT", "exit 1 when the throughput interval lies wholly below 1 − PERCENT", t => Percent("--fail-if-slower", t));
        var outFile = new Option<string?>("--out") { Description = "also write the comparison as Markdown", HelpName = "FILE.md" };
        var runsDir = new Option<string?>("--runs-dir") { Description = "where each run's reports go (default: out)", HelpName = "DIR" };
        var connectionString = CliTargets.ConnectionStringOption("storage account to test (default: the STORAGEBENCH_TARGET_* settings if set, else Azurite started on loopback)");
        var hubConnectionString = CliTargets.HubConnectionStringOption();
        var prices = CliTargets.PricesOption();
        var command = new Command("ab", "Run two specs alternately on one target, N rounds of one run each, and judge candidate / baseline of " +
            "throughput, p50 and p99 with a 95 % confidence interval (docs/comparing.md). " +
            "Exit 0 judged, 1 slower than --fail-if-slower allows or a run failed, 2 bad arguments or spec, 3 --fail-if-slower could not judge (the line says what to change).")
        {
            baselineSpec, candidateSpec, rounds, order, seed, threshold, failIfSlower, outFile, runsDir, connectionString, hubConnectionString, prices,
        };
        command.Validators.Add(r =>
        {
            foreach (var required in new[] { baselineSpec, candidateSpec })
            {
                if (r.GetResult(required) is null)
                {
                    r.AddError($"{required.Name}: required (a run spec JSON file)");
                }
            }
        });
        command.SetAction(async (r, ct) =>
        {
            var ab = new AbOptions(r.GetValue(baselineSpec)!, r.GetValue(candidateSpec)!, r.GetValue(rounds) ?? AbOptions.DefaultRounds, r.GetValue(order) ?? "alternate",
                r.GetValue(seed), r.GetValue(threshold) ?? AbOptions.DefaultThresholdPercent, r.GetValue(failIfSlower), r.GetValue(outFile), r.GetValue(runsDir) ?? "out");
            if (await ReadSpecsAsync(ab, cli.Stderr, ct).ConfigureAwait(false) is not { } specs
                || await CliTargets.PricesAsync(r.GetValue(prices), cli.Stderr).ConfigureAwait(false) is not { } table)
            {
                return CliApp.UsageError;
            }
            return await CliTargets.WithTargetsAsync(r.GetValue(connectionString), r.GetValue(hubConnectionString), cli.Stdout, cli.Stderr,
                (targets, plane) => RunAsync(ab, specs.Baseline, specs.Candidate, targets, plane, table, cli.Stdout, cli.Stderr, ct), ct).ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>Reads and validates both specs; null (after saying why on stderr) when one is rejected.</summary>
    public static async Task<(RunSpec Baseline, RunSpec Candidate)?> ReadSpecsAsync(AbOptions o, TextWriter stderr, CancellationToken ct)
    {
        RunSpec? baseline = null, candidate = null;
        foreach (var (option, path) in new[] { ("--baseline", o.BaselineSpec), ("--candidate", o.CandidateSpec) })
        {
            var (read, readError) = await SpecFile.ReadAsync(option, path, ct).ConfigureAwait(false);
            if (read is not { } json)
            {
                await stderr.WriteLineAsync(readError).ConfigureAwait(false);
                return null;
            }
            var (spec, errors) = RunSpecParser.Parse(json);
            if (spec is null)
            {
                await stderr.WriteLineAsync($"error: {option}: the run spec \"{path}\" was rejected; nothing was started:").ConfigureAwait(false);
                foreach (var e in errors)
                {
                    await stderr.WriteLineAsync("  " + e).ConfigureAwait(false);
                }
                return null;
            }
            (baseline, candidate) = option == "--baseline" ? (spec, candidate) : (baseline, spec);
        }
        return (baseline!, candidate!);
    }

    /// <summary>Runs the rounds on <paramref name="targets"/>, prints and (with --out) writes the report. Exit 0 judged, 1 a run failed or --fail-if-slower tripped.</summary>
    public static async Task<int> RunAsync(AbOptions o, RunSpec baseline, RunSpec candidate, IReadOnlyList<StorageTarget> targets, ControlPlane plane, PriceTable prices,
        TextWriter stdout, TextWriter stderr, CancellationToken ct)
    {
        var random = o.Seed is { } seed ? new Random(seed) : new Random();
        var runs = new List<AbRun>();
        using var results = CliTargets.ResultsStore(plane);
        // A hub of its own, as a run has: no other process's run or stale lease slows one side's rounds.
        await using var hub = await CliTargets.StartHubAsync(targets, plane, results, TaskHubSettings.ForRun("ab" + Engine.Planning.Planner.NewRunId(DateTime.UtcNow)), null, null, ct,
            oneRun: true)
            .ConfigureAwait(false);
        hub.DeleteWhenDisposed();
        for (int round = 1; round <= o.Rounds && !ct.IsCancellationRequested; round++)
        {
            bool baselineFirst = o.Order == "alternate" ? round % 2 == 1 : random.Next(2) == 0;
            foreach (bool isBaseline in baselineFirst ? new[] { true, false } : [false, true])
            {
                if (ct.IsCancellationRequested)
                {
                    break;
                }
                var summary = await RunOnceAsync(hub, results, isBaseline ? baseline : candidate, prices, ct).ConfigureAwait(false);
                var files = await ReportWriter.WriteAsync(summary, Path.Combine(o.RunsDirectory, summary.RunId), CancellationToken.None).ConfigureAwait(false);
                var run = new AbRun(round, isBaseline ? "baseline" : "candidate", RunFigures.FromSummary(summary, files[0]));
                runs.Add(run);
                await stdout.WriteLineAsync($"round {round}/{o.Rounds} {run.Side,-9} {RoundLine(run)}").ConfigureAwait(false);
            }
        }
        string report = Report(o, baseline, candidate, runs, out bool slowerThanAllowed, out string? cannotJudge);
        if (o.OutFile is { } outFile)
        {
            try
            {
                await File.WriteAllTextAsync(outFile, report, CancellationToken.None).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                await stderr.WriteLineAsync($"error: --out: \"{outFile}\" cannot be written: {ex.Message}").ConfigureAwait(false);
                return 2;
            }
        }
        await stdout.WriteLineAsync().ConfigureAwait(false);
        await stdout.WriteLineAsync(report).ConfigureAwait(false);
        if (o.OutFile is not null)
        {
            await stdout.WriteLineAsync($"Wrote {o.OutFile}").ConfigureAwait(false);
        }
        bool allCompleted = runs.Count == 2 * o.Rounds && runs.All(r => r.Figures.Status == RunStatus.Completed);
        if (allCompleted && !slowerThanAllowed && cannotJudge is not null)
        {
            // A gate that cannot judge does not pass: it says what to change, with its own exit code.
            await stderr.WriteLineAsync(cannotJudge).ConfigureAwait(false);
            return CliApp.CouldNotJudge;
        }
        return allCompleted && !slowerThanAllowed ? 0 : 1;
    }

    /// <summary>One run of one side in one round.</summary>
    public sealed record AbRun(int Round, string Side, RunFigures Figures);

    /// <summary>One run to its end; Ctrl+C asks it to stop (it still cleans up and stores what it has), and no further round starts.</summary>
    private static async Task<RunSummary> RunOnceAsync(LocalTaskHub hub, ResultsTableStore results, RunSpec spec, PriceTable prices, CancellationToken ct)
    {
        var started = await new RunStarter(hub, TimeProvider.System).StartAsync(spec, "local-cli-ab", null, ct).ConfigureAwait(false);
        return await LocalRun.WaitAsync(hub, results, started.RunId!, prices, Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance, ct).ConfigureAwait(false);
    }
}
