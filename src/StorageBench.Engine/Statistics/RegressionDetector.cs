using System.Globalization;
using StorageBench.Engine.Comparison;

namespace StorageBench.Engine.Statistics;

/// <summary>The nightly verdict, with the evidence for it: <see cref="ChangeOutcome.CannotJudge"/> when the baseline has too few
/// runs or the run itself was too short to judge (docs/comparing.md, "The rule"): shown, never a regression.</summary>
public sealed record RegressionVerdict(ChangeOutcome Outcome, string Reason, int BaselineRuns, IReadOnlyList<MetricVerdict> Metrics)
{
    /// <summary>regressed, improved, within noise or not judged (<see cref="VerdictWords"/>): what the results row and the telemetry carry.</summary>
    public string Verdict => VerdictWords.Of(Outcome, Judged.Run);
}

/// <summary>One metric against its baseline: median and MAD of the trailing runs, and the band a run may move within.</summary>
public sealed record MetricVerdict(string Metric, bool HigherIsBetter, double Current, double BaselineMedian, double BaselineMad, double AllowedChange, ChangeOutcome Outcome)
{
    public string Verdict => VerdictWords.Of(Outcome, HigherIsBetter);
}

/// <summary>A metric's current value and its values in the trailing runs (newest first).</summary>
public sealed record MetricHistory(string Metric, bool HigherIsBetter, double Current, IReadOnlyList<double> Baseline)
{
    /// <summary>Why this metric of the current run cannot be judged (a percentile its samples do not support); null when it can.</summary>
    public string? NotJudgedReason { get; init; }
}

/// <summary>
/// Robust comparison with a trailing baseline: the median of the last runs, and the median absolute
/// deviation (MAD, scaled by 1.4826 to estimate σ) as the noise. A run regresses when it falls more
/// than max(k·σ, minimum relative change × median) on the bad side. One noisy night cannot move a
/// median, and a noisy scenario widens its own band.
/// </summary>
public sealed record RegressionRule(int MinBaselineRuns = ChangeRule.MinBaselineRuns, int MaxBaselineRuns = 14, double Sigmas = 3, double MinRelativeChange = 0.05)
{
    public RegressionVerdict Evaluate(IReadOnlyList<MetricHistory> metrics)
    {
        int runs = metrics.Count == 0 ? 0 : metrics.Min(m => Math.Min(m.Baseline.Count, MaxBaselineRuns));
        if (ChangeRule.BaselineReason(runs, MinBaselineRuns) is { } tooFew)
        {
            return new RegressionVerdict(ChangeOutcome.CannotJudge, tooFew, runs, []);
        }
        var verdicts = metrics.Select(Judge).ToList();
        if (verdicts.All(v => v.Outcome == ChangeOutcome.CannotJudge))
        {
            return new RegressionVerdict(ChangeOutcome.CannotJudge, string.Join("; ", metrics.Select(m => $"{m.Metric}: {m.NotJudgedReason}")), runs, verdicts);
        }
        var regressed = verdicts.Where(v => v.Outcome == ChangeOutcome.Worse).ToList();
        var improved = verdicts.Where(v => v.Outcome == ChangeOutcome.Better).ToList();
        var (verdict, named) = regressed.Count > 0 ? (ChangeOutcome.Worse, regressed)
            : improved.Count > 0 ? (ChangeOutcome.Better, improved)
            : (ChangeOutcome.NoChange, verdicts.Where(v => v.Outcome != ChangeOutcome.CannotJudge).ToList());
        string reason = string.Join("; ", named.Select(v => string.Create(CultureInfo.InvariantCulture,
            $"{v.Metric} {v.Current:0.###} vs median {v.BaselineMedian:0.###} (allowed ±{v.AllowedChange:0.###})")));
        var unjudged = metrics.Where(m => m.NotJudgedReason is not null).Select(m => $"{m.Metric} not judged: {m.NotJudgedReason}").ToList();
        return new RegressionVerdict(verdict, unjudged.Count == 0 ? reason : reason + "; " + string.Join("; ", unjudged), runs, verdicts);
    }

    private MetricVerdict Judge(MetricHistory m)
    {
        var baseline = m.Baseline.Take(MaxBaselineRuns).ToArray();
        double median = Robust.Median(baseline);
        double mad = Robust.Mad(baseline, median);
        double allowed = Math.Max(Sigmas * Robust.MadToSigma * mad, MinRelativeChange * Math.Abs(median));
        if (m.NotJudgedReason is not null)
        {
            return new MetricVerdict(m.Metric, m.HigherIsBetter, m.Current, median, mad, allowed, ChangeOutcome.CannotJudge);
        }
        // The one rule (ChangeRule): tonight's change from the baseline's median against the band its spread allows.
        var outcome = ChangeRule.Decide(m.Current - median, m.Current - median, allowed, m.HigherIsBetter).Outcome;
        return new MetricVerdict(m.Metric, m.HigherIsBetter, m.Current, median, mad, allowed, outcome);
    }
}
