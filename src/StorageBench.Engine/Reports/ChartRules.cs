using System.Globalization;

namespace StorageBench.Engine.Reports;

/// <summary>What the report's charts leave out or set apart so they cannot mislead; each rule is tested on crafted summaries (ChartRulesTests).</summary>
public static class ChartRules
{
    /// <summary>
    /// A throughput timeline needs this many buckets: its first and last are partial (the run starts and ends
    /// inside them), so fewer leave under three whole ones — a line through them shows the edges, not a rate.
    /// </summary>
    public const int MinTimelineBuckets = 5;

    /// <summary>Why a workload gets no timeline (null: it gets one).</summary>
    public static string? NoTimelineReason(WorkloadSummary w) => w.Timeline.Count >= MinTimelineBuckets ? null
        : string.Create(CultureInfo.InvariantCulture,
            $"No throughput timeline: the run is too short to have one ({w.Timeline.Count} bucket(s) of {w.Timeline.BucketSeconds} s over {w.DurationSeconds:0.##} s, " +
            $"the first and last partial; a timeline needs at least {MinTimelineBuckets}). Its throughput over the whole run is in the table above.");

    /// <summary>The histogram's equal-width bins (min to p99.9) and, apart, the tail beyond p99.9 (null when nothing lies there).</summary>
    public static (IReadOnlyList<LatencyBin> Bins, LatencyBin? Overflow) Histogram(IReadOnlyList<LatencyBin> distribution) =>
        distribution.Count > SummaryCalculator.HistogramBins
            ? ([.. distribution.Take(SummaryCalculator.HistogramBins)], distribution[SummaryCalculator.HistogramBins])
            : (distribution, null);

    /// <summary>The steps whose <paramref name="quantile"/> the rule supports, as (step value, percentile) points; the others are left out.</summary>
    public static IReadOnlyList<(double X, double Y)> SupportedPercentile(IEnumerable<WorkloadSummary> steps, double quantile, Func<LatencySummary, double?> value) =>
        [.. steps.Where(w => PercentileSupport.Supports(w.LatencyMs.Samples, quantile)).Select(w => (w.StepValue ?? 0, value(w.LatencyMs)!.Value))];

    /// <summary>Which steps' percentile was left out and why (null when none was).</summary>
    public static string? LeftOut(IReadOnlyList<WorkloadSummary> steps, double quantile)
    {
        var missing = steps.Where(w => !PercentileSupport.Supports(w.LatencyMs.Samples, quantile)).ToList();
        return missing.Count == 0 ? null
            : $"{PercentileSupport.Name(quantile)} not drawn for {string.Join(", ", missing.Select(w => string.Create(CultureInfo.InvariantCulture, $"{ReportWriter.Label(w)} ({w.LatencyMs.Samples:N0} samples)")))}: " +
              PercentileSupport.Rule(quantile) + ".";
    }
}
