using StorageBench.Engine.Reports;

namespace StorageBench.Engine.Comparison;

/// <summary>One metric of one workload and step, baseline against candidate.</summary>
/// <param name="Unit">What the values are in; for a share, the values are shares of the requests (0–1).</param>
/// <param name="Band">How far the metric may move and still be noise: a share of the baseline, or for a share metric
/// percentage points (as a share); null when it is not judged.</param>
/// <param name="Floor">The metric's run-to-run floor; the band is never narrower.</param>
/// <param name="NoiseEstimated">False when the floor alone made the band (a side without a usable per-second spread).</param>
public sealed record MetricChange(string Metric, string Unit, bool HigherIsBetter, NoiseKind Kind, double? Baseline, double? Candidate,
    double? Band, double Floor, bool NoiseEstimated)
{
    /// <summary>Why this metric is not judged between these runs (too short a window, too few samples, different specs); null when it is.</summary>
    public string? NotJudgedReason { get; init; }

    /// <summary>True when the band came from earlier runs of the scenario (run-to-run spread), not from these runs' own seconds.</summary>
    public bool FromHistory { get; init; }

    /// <summary>For a share: the counts behind it.</summary>
    public long? BaselineCount { get; init; }
    public long? CandidateCount { get; init; }

    public double? Change => Candidate - Baseline;

    /// <summary>The band in the metric's own unit.</summary>
    public double? Allowed => NotJudgedReason is not null ? null : Kind == NoiseKind.Share ? Band : Band * Math.Abs(Baseline ?? 0);

    /// <summary>Change as a share of the baseline; null when the baseline is zero (or a value is missing).</summary>
    public double? RelativeChange => Baseline is > 0 && Change is { } c ? c / Baseline.Value : null;

    /// <summary>The one rule's decision (<see cref="ChangeRule"/>): the change against the band, or why it cannot be judged; null when a side lacks the figure.</summary>
    public ChangeJudgement? Judgement => Change is not { } c ? null
        : Allowed is { } a ? ChangeRule.Decide(c, c, a, HigherIsBetter)
        : ChangeJudgement.CannotJudge(NotJudgedReason ?? "the maximum latency is one request: shown, never judged");

    public bool BeyondNoise => Judgement?.Outcome is ChangeOutcome.Worse or ChangeOutcome.Better;

    public bool Worse => Judgement?.Outcome == ChangeOutcome.Worse;

    /// <summary>The verdict's words (<see cref="VerdictWords"/>), or "n/a" when a side lacks the figure.</summary>
    public string Verdict => Judgement is { } j ? VerdictWords.Of(j.Outcome, HigherIsBetter) : "n/a";
}

/// <summary>The metrics of one workload (and sweep step) present in both runs.</summary>
public sealed record WorkloadComparison(string Workload, string? StepParameter, double? StepValue, RateSpread? BaselineSpread, RateSpread? CandidateSpread,
    IReadOnlyList<MetricChange> Metrics)
{
    public string Label => ReportWriter.Label(Workload, StepParameter, StepValue);

    /// <summary>The headline throughput (entities/s or MB/s): what --fail-if-slower looks at.</summary>
    public MetricChange Throughput => Metrics[0];
}

/// <summary>
/// Baseline against candidate, workload by workload and, for sweeps and searches, step by step
/// (matching parameter and value). What is in only one of the runs is listed, not compared.
/// </summary>
public sealed record RunComparison(RunFigures Baseline, RunFigures Candidate, NoiseRule Rule, IReadOnlyList<WorkloadComparison> Workloads,
    IReadOnlyList<string> OnlyInBaseline, IReadOnlyList<string> OnlyInCandidate)
{
    /// <summary>Every field in which the runs' specs differ; empty when they are the same or a spec is unknown (see <see cref="SpecsKnown"/>).</summary>
    public IReadOnlyList<string> SpecDifferences { get; init; } = [];

    /// <summary>False when a run's spec was not recorded (a results row written before specs were stored): the specs could not be checked.</summary>
    public bool SpecsKnown { get; init; } = true;

    /// <summary>True when the specs differ and nothing was judged because of it (not asked with judgeDifferentSpecs).</summary>
    public bool NotJudgedForSpecs => SpecDifferences.Count > 0 && Workloads.SelectMany(w => w.Metrics).All(m => m.NotJudgedReason is not null || m.Allowed is null);

    /// <param name="judgeDifferentSpecs">Judge even when the specs differ (the difference is then the point of the comparison).</param>
    /// <param name="history">Run-to-run spread of earlier runs of the scenario, per workload and step (<see cref="RunToRunSpread.Key"/>).</param>
    public static RunComparison Compare(RunFigures baseline, RunFigures candidate, NoiseRule? rule = null, bool judgeDifferentSpecs = false,
        IReadOnlyDictionary<string, RunToRunSpread>? history = null)
    {
        rule ??= NoiseRule.Default;
        static (string, string?, double?) Key(WorkloadFigures w) => (w.Workload, w.StepParameter, w.StepValue);
        bool known = baseline.Spec is not null && candidate.Spec is not null;
        var differences = known ? Comparison.SpecDifferences.Between(baseline.Spec!, candidate.Spec!) : [];
        string? specReason = differences.Count > 0 && !judgeDifferentSpecs
            ? $"the specs differ in {differences.Count} field(s) (listed above)"
            : null;
        var candidates = candidate.Workloads.ToDictionary(Key);
        var matched = baseline.Workloads.Where(b => candidates.ContainsKey(Key(b)))
            .Select(b => Workload(b, candidates[Key(b)], rule, specReason, history?.GetValueOrDefault(RunToRunSpread.Key(b.Workload, b.StepParameter, b.StepValue)))).ToList();
        var inBaseline = baseline.Workloads.Select(Key).ToHashSet();
        return new RunComparison(baseline, candidate, rule, matched,
            [.. baseline.Workloads.Where(b => !candidates.ContainsKey(Key(b))).Select(Label)],
            [.. candidate.Workloads.Where(c => !inBaseline.Contains(Key(c))).Select(Label)])
        {
            SpecDifferences = differences, SpecsKnown = known,
        };
    }

    /// <summary>Throughputs (any workload, any step) lower than the baseline's by more than <paramref name="percent"/> and beyond noise.</summary>
    public IReadOnlyList<WorkloadComparison> SlowerBy(double percent) =>
        [.. Workloads.Where(w => w.Throughput is { Worse: true, RelativeChange: { } r } && -r * 100 > percent)];

    /// <summary>In a few words: slower, faster, mixed, or within noise.</summary>
    public string Verdict()
    {
        if (NotJudgedForSpecs)
        {
            return $"{VerdictWords.NotJudged}: the specs differ";
        }
        var unjudged = Workloads.Where(w => w.Throughput.NotJudgedReason is not null).Select(w => w.Label).ToList();
        if (unjudged.Count == Workloads.Count && unjudged.Count > 0)
        {
            return $"{VerdictWords.NotJudged}: " + Workloads[0].Throughput.NotJudgedReason;
        }
        var slower = Workloads.Where(w => w.Throughput.Worse).Select(w => w.Label).ToList();
        var faster = Workloads.Where(w => w.Throughput is { BeyondNoise: true, Worse: false }).Select(w => w.Label).ToList();
        return (slower.Count, faster.Count) switch
        {
            (0, 0) => $"{VerdictWords.WithinNoise}: no throughput change beyond it",
            (> 0, 0) => $"{VerdictWords.Slower}: {string.Join(", ", slower)}",
            (0, > 0) => $"{VerdictWords.Faster}: {string.Join(", ", faster)}",
            _ => $"mixed: {VerdictWords.Slower} {string.Join(", ", slower)}; {VerdictWords.Faster} {string.Join(", ", faster)}",
        };
    }

    private static string Label(WorkloadFigures w) => ReportWriter.Label(w.Workload, w.StepParameter, w.StepValue);

    private static WorkloadComparison Workload(WorkloadFigures a, WorkloadFigures b, NoiseRule rule, string? specReason, RunToRunSpread? history)
    {
        MetricChange Metric(string name, string unit, bool higherIsBetter, NoiseKind kind, double floor, double? baseline, double? candidate,
            double? quantile = null, Func<RunToRunSpread, double?>? fromHistory = null)
        {
            double? band = rule.RelativeBand(kind, floor, a.Spread, b.Spread, out bool estimated);
            double? historyBand = fromHistory is null ? null : rule.HistoryBand(history, fromHistory);
            return new MetricChange(name, unit, higherIsBetter, kind, baseline, candidate, historyBand ?? band, historyBand is null ? floor : rule.MinRelativeChange,
                estimated || historyBand is not null)
            {
                NotJudgedReason = kind == NoiseKind.NotJudged ? null : specReason ?? rule.NotJudgedReason(kind, quantile, a, b),
                FromHistory = historyBand is not null,
            };
        }
        static double Share(long count, long operations) => operations > 0 ? (double)count / operations : 0;

        var metrics = new List<MetricChange>
        {
            Metric("throughput", a.Unit, true, NoiseKind.RunMean, rule.ThroughputFloor, a.Rate, b.Rate, fromHistory: h => h.Throughput),
            Metric("peak second", a.Unit, true, NoiseKind.OneSecond, rule.PeakFloor, a.PeakPerSecond, b.PeakPerSecond),
            Metric("latency p50", "ms", false, NoiseKind.RunMean, rule.LatencyP50Floor, a.LatencyP50Ms, b.LatencyP50Ms, 0.50, h => h.LatencyP50),
            Metric("latency p95", "ms", false, NoiseKind.RunMean, rule.LatencyP95Floor, a.LatencyP95Ms, b.LatencyP95Ms, 0.95),
            Metric("latency p99", "ms", false, NoiseKind.RunMean, rule.LatencyP99Floor, a.LatencyP99Ms, b.LatencyP99Ms, 0.99, h => h.LatencyP99),
            Metric("latency max", "ms", false, NoiseKind.NotJudged, 0, a.LatencyMaxMs, b.LatencyMaxMs),
            Metric("throttled", "share of requests", false, NoiseKind.Share, rule.ShareFloor, Share(a.Throttled, a.Operations), Share(b.Throttled, b.Operations))
                with { BaselineCount = a.Throttled, CandidateCount = b.Throttled },
            Metric("failed", "share of requests", false, NoiseKind.Share, rule.ShareFloor, Share(a.Failed, a.Operations), Share(b.Failed, b.Operations))
                with { BaselineCount = a.Failed, CandidateCount = b.Failed },
            Metric("client CPU", a.Kind.CpuUnit, false, NoiseKind.RunMean, rule.CpuFloor, a.CpuMicrosecondsPerUnit, b.CpuMicrosecondsPerUnit),
        };
        return new WorkloadComparison(a.Workload, a.StepParameter, a.StepValue, a.Spread, b.Spread, metrics);
    }
}

/// <summary>
/// How much runs of one scenario (one workload and step) differ from run to run, from the results table's
/// earlier completed runs: each metric's 1.4826 × MAD / median (a robust relative σ), as the nightly check measures it.
/// </summary>
public sealed record RunToRunSpread(int Runs, double Throughput, double? LatencyP50, double? LatencyP99)
{
    public static string Key(string workload, string? parameter, double? value) =>
        parameter is null ? workload : string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{workload}|{parameter}={value}");

    /// <summary>From earlier runs' figures of one workload and step; null for fewer than two runs.</summary>
    public static RunToRunSpread? Of(IReadOnlyList<WorkloadFigures> runs)
    {
        if (runs.Count < 2)
        {
            return null;
        }
        static double? Relative(IEnumerable<double> values)
        {
            double[] v = [.. values.Where(x => x > 0)];
            if (v.Length < 2)
            {
                return null;
            }
            return Robust.Sigma(v) / Robust.Median(v);
        }
        return new RunToRunSpread(runs.Count, Relative(runs.Select(r => r.Rate)) ?? 0, Relative(runs.Select(r => r.LatencyP50Ms)), Relative(runs.Select(r => r.LatencyP99Ms)));
    }
}
