using HdrHistogram;
using StorageBench.Engine.Comparison;

namespace StorageBench.Engine.Statistics;

/// <summary>
/// Whether a long run held its pace: its first and last tenth of segments (from ten segments on) compared by the rule
/// `compare` uses (<see cref="NoiseRule"/>): throughput against its per-second noise and floor, p99 against its floor where
/// both tenths have the samples for it. Slower when either got worse beyond the noise, faster when either got better and
/// neither worse, else stable.
/// </summary>
/// <param name="FirstTenthPerSecond">The step's rate (its kind's unit) over the seconds of the first tenth in which every slice ran.</param>
/// <param name="ThroughputBand">How far the rate may move as a share of the first tenth's and still be noise.</param>
public sealed record DriftFigure(string Verdict, double FirstTenthPerSecond, double LastTenthPerSecond, double ThroughputBand,
    double? FirstTenthP99Ms, double? LastTenthP99Ms, double P99Band)
{
    public const string Stable = "stable", Slower = "slower", Faster = "faster", CannotJudge = "cannot judge";

    /// <summary>The step's drift from its slices' tenths (null unless every slice ran ten segments or more).</summary>
    internal static DriftFigure? Of(IReadOnlyList<SliceResult> slices, Timeline timeline, double unitDivisor, Func<IReadOnlyList<TimelinePoint>, long, int, RateSpread?> spread)
    {
        if (slices.Count == 0 || slices.Any(s => s.Drift is null))
        {
            return null;
        }
        var drifts = slices.Select(s => s.Drift!).ToList();
        var first = Rate(timeline, drifts.Max(d => d.FirstFromUtc), drifts.Min(d => d.FirstToUtc), unitDivisor, spread);
        var last = Rate(timeline, drifts.Max(d => d.LastFromUtc), drifts.Min(d => d.LastToUtc), unitDivisor, spread);
        return Judge(first, last, LatencyHistograms.Merge(drifts.Select(d => d.FirstTenth)), LatencyHistograms.Merge(drifts.Select(d => d.LastTenth)), NoiseRule.Default);
    }

    /// <summary>The verdict on two tenths' figures.</summary>
    public static DriftFigure Judge(RateSpread first, RateSpread last, HistogramBase firstLatency, HistogramBase lastLatency, NoiseRule rule)
    {
        double rateBand = rule.RelativeBand(NoiseKind.RunMean, rule.ThroughputFloor, first, last, out _) ?? rule.ThroughputFloor;
        double p99Band = rule.RelativeBand(NoiseKind.RunMean, rule.LatencyP99Floor, first, last, out _) ?? rule.LatencyP99Floor;
        var rate = first.Mean > 0 ? ChangeRule.Decide(Change(first.Mean, last.Mean), Change(first.Mean, last.Mean), rateBand, higherIsBetter: true).Outcome : ChangeOutcome.CannotJudge;
        double? p99First = P99(firstLatency), p99Last = P99(lastLatency);
        var p99 = p99First is > 0 && p99Last is { } l
            ? ChangeRule.Decide(Change(p99First.Value, l), Change(p99First.Value, l), p99Band, higherIsBetter: false).Outcome
            : ChangeOutcome.CannotJudge;
        // Neither figure judged is no verdict: "stable" would pass a run that measured nothing in a tenth.
        string verdict = rate == ChangeOutcome.Worse || p99 == ChangeOutcome.Worse ? Slower
            : rate == ChangeOutcome.Better || p99 == ChangeOutcome.Better ? Faster
            : rate == ChangeOutcome.CannotJudge && p99 == ChangeOutcome.CannotJudge ? CannotJudge
            : Stable;
        return new DriftFigure(verdict, first.Mean, last.Mean, rateBand, p99First, p99Last, p99Band);
    }

    private static double Change(double from, double to) => (to - from) / from;

    /// <summary>A tenth's p99 in ms, where it has the samples to support one (PercentileSupport).</summary>
    private static double? P99(HistogramBase h) =>
        PercentileSupport.Supports(h.TotalCount, 0.99) ? SummaryCalculator.Latency(h).P99 : null;

    /// <summary>The step's per-bucket rates over a tenth's whole buckets in which every slice ran (its mean alone when under two buckets).</summary>
    private static RateSpread Rate(Timeline timeline, DateTime fromUtc, DateTime toUtc, double unitDivisor, Func<IReadOnlyList<TimelinePoint>, long, int, RateSpread?> spread)
    {
        int w = timeline.BucketSeconds;
        long from = SummaryCalculator.CeilTo(fromUtc, w), to = Math.Max(from, SummaryCalculator.FloorTo(toUtc, w));
        var points = timeline.Points().Where(p => p.UnixSecond >= from && p.UnixSecond < to).ToList();
        int buckets = (int)((to - from) / w);
        return spread(points, from, buckets) ?? new RateSpread(buckets > 0 ? points.Sum(p => p.Units) / (double)(to - from) / unitDivisor : 0, 0, buckets);
    }
}
