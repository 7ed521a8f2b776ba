using System.Globalization;
using StorageBench.Engine.Comparison;

namespace StorageBench.Engine.Statistics;

/// <summary>The nightly verdict, with the evidence for it.</summary>
public sealed record RegressionVerdict(string Verdict, string Reason, int BaselineRuns, IReadOnlyList<MetricVerdict> Metrics)
{
    public const string Ok = "ok";
    public const string Regressed = "regressed";
    public const string Improved = "improved";
    public const string InsufficientBaseline = "insufficient-baseline";
    /// <summary>The run itself was too short to judge (docs/comparing.md, "The rule"): shown, never a regression.</summary>
    public const string NotJudged = "not-judged";
}

/// <summary>One metric against its baseline: median and MAD of the trailing runs, and the band a run may move within.</summary>
public sealed record MetricVerdict(string Metric, bool HigherIsBetter, double Current, double BaselineMedian, double BaselineMad, double AllowedChange, string Verdict);

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
            return new RegressionVerdict(RegressionVerdict.InsufficientBaseline, tooFew, runs, []);
        }
        var verdicts = metrics.Select(Judge).ToList();
        if (verdicts.All(v => v.Verdict == RegressionVerdict.NotJudged))
        {
            return new RegressionVerdict(RegressionVerdict.NotJudged, string.Join("; ", metrics.Select(m => $"{m.Metric}: {m.NotJudgedReason}")), runs, verdicts);
        }
        var regressed = verdicts.Where(v => v.Verdict == RegressionVerdict.Regressed).ToList();
        var improved = verdicts.Where(v => v.Verdict == RegressionVerdict.Improved).ToList();
        var (verdict, named) = regressed.Count > 0 ? (RegressionVerdict.Regressed, regressed)
            : improved.Count > 0 ? (RegressionVerdict.Improved, improved)
            : (RegressionVerdict.Ok, verdicts.Where(v => v.Verdict != RegressionVerdict.NotJudged).ToList());
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
            return new MetricVerdict(m.Metric, m.HigherIsBetter, m.Current, median, mad, allowed, RegressionVerdict.NotJudged);
        }
        // The one rule (ChangeRule): tonight's change from the baseline's median against the band its spread allows.
        string verdict = ChangeRule.Decide(m.Current - median, m.Current - median, allowed, m.HigherIsBetter).Outcome switch
        {
            ChangeOutcome.Worse => RegressionVerdict.Regressed,
            ChangeOutcome.Better => RegressionVerdict.Improved,
            _ => RegressionVerdict.Ok,
        };
        return new MetricVerdict(m.Metric, m.HigherIsBetter, m.Current, median, mad, allowed, verdict);
    }
}
