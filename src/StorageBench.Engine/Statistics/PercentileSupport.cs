using System.Globalization;

namespace StorageBench.Engine.Statistics;

/// <summary>
/// When a latency percentile from n samples is a figure and not just one of the few slowest requests: with at
/// least <see cref="SamplesAbove"/> samples above it, n ≥ 10 / (1 − q) — p50 20, p90 100, p95 200, p99 1,000,
/// p99.9 10,000. Below that, one stall moves it (a "p99" of 30 samples is their maximum). The one rule:
/// storagebench compare judges a percentile only under it (NoiseRule), and the reports mark or leave out the
/// percentiles it does not support.
/// </summary>
public static class PercentileSupport
{
    public const int SamplesAbove = 10;

    /// <param name="quantile">0.99 for p99.</param>
    public static long MinSamples(double quantile, int samplesAbove = SamplesAbove) =>
        (long)Math.Ceiling(Math.Round(samplesAbove / (1 - quantile), 6));

    public static bool Supports(long samples, double quantile) => samples >= MinSamples(quantile);

    /// <summary>"p99" for 0.99, "p99.9" for 0.999.</summary>
    public static string Name(double quantile) => "p" + (quantile * 100).ToString("0.##", CultureInfo.InvariantCulture);

    /// <summary>The rule in one sentence, for a report's note.</summary>
    public static string Rule(double quantile) => string.Create(CultureInfo.InvariantCulture,
        $"{Name(quantile)} needs at least {MinSamples(quantile):N0} samples ({SamplesAbove} above it); with fewer it is one of the few slowest requests, which one stall moves");
}
