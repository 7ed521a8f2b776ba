using System.Globalization;
using System.Text;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.Reports;

namespace StorageBench.Cli;

/// <summary>`storagebench ab`'s words: a line per round as it ends, and the report of the verdicts, the method, the machine and every round.</summary>
public static partial class AbCommand
{
    /// <summary>Judged per workload and step: the headline throughput, and p50 and p99 latency.</summary>
    private static readonly (string Metric, bool HigherIsBetter, double? Quantile, Func<WorkloadFigures, double?> Value)[] Metrics =
    [
        ("throughput", true, null, w => w.Rate),
        ("latency p50", false, 0.50, w => w.LatencyP50Ms),
        ("latency p99", false, 0.99, w => w.LatencyP99Ms),
    ];

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
