using System.CommandLine;
using System.Globalization;
using System.Text;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Reports;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;
using StorageBench.TaskHub;

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
public static class AbCommand
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

    /// <summary>Judged per workload and step: the headline throughput, and p50 and p99 latency.</summary>
    private static readonly (string Metric, bool HigherIsBetter, double? Quantile, Func<WorkloadFigures, double?> Value)[] Metrics =
    [
        ("throughput", true, null, w => w.Rate),
        ("latency p50", false, 0.50, w => w.LatencyP50Ms),
        ("latency p99", false, 0.99, w => w.LatencyP99Ms),
    ];

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
        await using var hub = await CliTargets.StartHubAsync(targets, plane, results, TaskHubSettings.ForRun("ab" + Engine.Planning.Planner.NewRunId(DateTime.UtcNow)), null, null, ct)
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

    private static string RoundLine(AbRun run)
    {
        var f = run.Figures;
        var env = f.Environment;
        string figures = string.Join("; ", f.Workloads.Select(w => string.Create(CultureInfo.InvariantCulture,
            $"{w.Workload}{(w.StepValue is { } v ? $"={v:0.###}" : "")} {w.Rate:#,0.0} {w.Unit}, p50 {w.LatencyP50Ms:0.0} ms, p99 {w.LatencyP99Ms:0.0} ms")));
        return string.Create(CultureInfo.InvariantCulture,
            $"{f.RunId} {f.Status}: {figures}; load {Num(env?.LoadAverageStart, "0.0")}→{Num(env?.LoadAverageEnd, "0.0")}, other processes' CPU {Share(env?.OtherProcessesCpuShare)}");
    }

    /// <summary>The report: the verdicts first, then the method, the machine side by side, and every round.</summary>
    public static string Report(AbOptions o, RunSpec baselineSpec, RunSpec candidateSpec, IReadOnlyList<AbRun> runs, out bool slowerThanAllowed, out string? cannotJudge)
    {
        slowerThanAllowed = false;
        cannotJudge = null;
        double threshold = o.ThresholdPercent / 100;
        var b = new StringBuilder();
        b.AppendLine(CultureInfo.InvariantCulture, $"# StorageBench A/B: {o.CandidateSpec} against {o.BaselineSpec}");
        b.AppendLine();
        var differences = SpecDifferences.Between(baselineSpec, candidateSpec);
        b.AppendLine(differences.Count == 0 ? $"The two specs are the same (apart from the scenario name): any verdict other than \"{VerdictWords.WithinNoise}\" is a false alarm."
            : "The specs differ in: " + string.Join("; ", differences.Select(d => "`" + d + "`")) + ".");
        b.AppendLine();
        var completed = runs.Where(r => r.Figures.Status == RunStatus.Completed).ToList();
        foreach (var r in runs.Where(r => r.Figures.Status != RunStatus.Completed))
        {
            b.AppendLine(CultureInfo.InvariantCulture, $"- warning: round {r.Round} {r.Side} run {r.Figures.RunId} is {r.Figures.Status}: left out of the verdicts");
        }
        var keys = completed.SelectMany(r => r.Figures.Workloads.Select(w => (w.Workload, w.StepParameter, w.StepValue))).Distinct().ToList();
        foreach (var key in keys)
        {
            string label = ReportWriter.Label(key.Workload, key.StepParameter, key.StepValue);
            WorkloadFigures? Of(AbRun r) => r.Figures.Workloads.FirstOrDefault(w => (w.Workload, w.StepParameter, w.StepValue) == key);
            foreach (var (metric, higherIsBetter, quantile, value) in Metrics)
            {
                double[] Values(string side) => [.. completed.Where(r => r.Side == side).Select(Of).Select(w => w is null ? null : value(w)).OfType<double>().Where(v => v > 0)];
                double[] a = Values("baseline"), c = Values("candidate");
                // The one rule (ChangeRule): enough rounds for an interval, and for a percentile enough samples in every round.
                string? why = a.Length == 0 || c.Length == 0 ? "a side has no completed round with this figure"
                    : (ChangeRule.RoundsReason(a.Length, c.Length) is { } few ? few + " (raise --rounds)" : null)
                    ?? (quantile is not { } q ? null : completed.Select(r => (r, w: Of(r))).Where(x => x.w is not null)
                        .Select(x => ChangeRule.PercentileReason($"round {x.r.Round}'s {x.r.Side}", q, x.w!.LatencySamples, x.w.DurationSeconds)).FirstOrDefault(m => m is not null));
                if (why is not null)
                {
                    b.AppendLine(CultureInfo.InvariantCulture, $"- {label} {metric}: {VerdictWords.NotJudged}: {why}");
                    if (metric == "throughput" && o.FailIfSlowerPercent is { } gate)
                    {
                        cannotJudge ??= string.Create(CultureInfo.InvariantCulture, $"--fail-if-slower {gate:0.##}: could not judge {label} throughput: {why}");
                    }
                    continue;
                }
                var interval = RatioInterval.Estimate(a, c);
                string sentence = AbVerdict.Sentence(metric, interval, threshold, higherIsBetter);
                b.AppendLine(CultureInfo.InvariantCulture, $"- **{label} {sentence}**");
                if (metric == "throughput" && o.FailIfSlowerPercent is { } limit && interval.High < 1 - limit / 100)
                {
                    slowerThanAllowed = true;
                    b.AppendLine(CultureInfo.InvariantCulture, $"- --fail-if-slower {limit:0.##}: {label} throughput is lower by more than {limit:0.##}% with 95 % confidence");
                }
            }
        }
        b.AppendLine();
        b.AppendLine(CultureInfo.InvariantCulture,
            $"Method: {o.Rounds} rounds, each one full run of each spec on the same target, order {(o.Order == "alternate" ? "alternating (baseline first in odd rounds, candidate first in even ones)" : $"random per round{(o.Seed is { } s ? $" (seed {s})" : "")}")}. " +
            $"The ratio is the Hodges–Lehmann estimate (median of all candidate/baseline pairs of rounds) with its exact Mann–Whitney 95 % confidence interval. " +
            $"A change is claimed only when the whole interval lies beyond ±{o.ThresholdPercent:0.#}%; otherwise it is \"{VerdictWords.WithinNoise}\", " +
            $"and an interval that excludes 1.0 but reaches into ±{o.ThresholdPercent:0.#}% says so.");
        b.AppendLine();
        b.Append(MachineTable(runs));
        b.AppendLine();
        b.AppendLine("| round | side | run | status | figures | load start → end | other processes' CPU |");
        b.AppendLine("|---:|---|---|---|---|---|---:|");
        foreach (var r in runs)
        {
            var env = r.Figures.Environment;
            string figures = string.Join("; ", r.Figures.Workloads.Select(w => string.Create(CultureInfo.InvariantCulture,
                $"{ReportWriter.Label(w.Workload, w.StepParameter, w.StepValue)} {w.Rate:#,0.0} {w.Unit}, p50 {w.LatencyP50Ms:0.0} ms, p99 {w.LatencyP99Ms:0.0} ms")));
            b.AppendLine(CultureInfo.InvariantCulture,
                $"| {r.Round} | {r.Side} | {r.Figures.RunId} | {r.Figures.Status} | {figures} | {Num(env?.LoadAverageStart, "0.0")} → {Num(env?.LoadAverageEnd, "0.0")} | {Share(env?.OtherProcessesCpuShare)} |");
        }
        return b.ToString();
    }

    /// <summary>The machine and the build, baseline and candidate side by side (medians over rounds), with a warning when they differed.</summary>
    private static string MachineTable(IReadOnlyList<AbRun> runs)
    {
        var b = new StringBuilder();
        string Median(string side, Func<RunEnvironment, double?> f, string format)
        {
            double[] v = [.. runs.Where(r => r.Side == side).Select(r => r.Figures.Environment is { } e ? f(e) : null).OfType<double>()];
            return v.Length == 0 ? "n/a" : format == "%" ? Share(Robust.Median(v)) : Robust.Median(v).ToString(format, CultureInfo.InvariantCulture);
        }
        string Distinct(string side, Func<RunEnvironment, string?> f) =>
            string.Join(", ", runs.Where(r => r.Side == side).Select(r => r.Figures.Environment is { } e ? f(e) : null).Distinct().Select(v => v ?? "n/a"));
        b.AppendLine("| machine and build | baseline | candidate |");
        b.AppendLine("|---|---|---|");
        b.AppendLine($"| load average at start (median) | {Median("baseline", e => e.LoadAverageStart, "0.0")} | {Median("candidate", e => e.LoadAverageStart, "0.0")} |");
        b.AppendLine($"| load average at end (median) | {Median("baseline", e => e.LoadAverageEnd, "0.0")} | {Median("candidate", e => e.LoadAverageEnd, "0.0")} |");
        b.AppendLine($"| other processes' CPU (median) | {Median("baseline", e => e.OtherProcessesCpuShare, "%")} | {Median("candidate", e => e.OtherProcessesCpuShare, "%")} |");
        b.AppendLine($"| tool version, commit | {Distinct("baseline", e => $"{e.ToolVersion} {e.ToolCommit}")} | {Distinct("candidate", e => $"{e.ToolVersion} {e.ToolCommit}")} |");
        b.AppendLine($"| emulator | {Distinct("baseline", e => e.EmulatorVersion)} | {Distinct("candidate", e => e.EmulatorVersion)} |");
        foreach (string warning in MachineComparison.Warnings([.. runs.Where(r => r.Side == "baseline").Select(r => r.Figures.Environment)],
                     [.. runs.Where(r => r.Side == "candidate").Select(r => r.Figures.Environment)]))
        {
            b.AppendLine();
            b.AppendLine("warning: " + warning);
        }
        return b.ToString();
    }

    private static string Num(double? v, string format) => v?.ToString(format, CultureInfo.InvariantCulture) ?? "n/a";

    private static string Share(double? v) => v is { } x ? x.ToString("0%", CultureInfo.InvariantCulture) : "n/a";
}
