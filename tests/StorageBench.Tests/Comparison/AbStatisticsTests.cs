using StorageBench.Engine.Comparison;

namespace StorageBench.Tests;

/// <summary>The A/B statistic: the exact Mann–Whitney distribution, and verdicts that must flag and must not.</summary>
[Trait("Category", "Unit")]
public class AbStatisticsTests
{
    [Fact]
    public void TheMannWhitneyDistributionMatchesTheTabulatedCounts()
    {
        // 5 and 5 values: 252 orderings; U = 0, 1, 2, 3 in 1, 1, 2, 3 of them.
        var p = RatioInterval.MannWhitneyCumulative(5, 5);
        Assert.Equal(26, p.Length);
        Assert.Equal(1 / 252.0, p[0], 12);
        Assert.Equal(2 / 252.0, p[1], 12);
        Assert.Equal(4 / 252.0, p[2], 12);
        Assert.Equal(7 / 252.0, p[3], 12);
        Assert.Equal(1.0, p[^1], 12);
        // Symmetric: P(U ≤ u) + P(U ≤ nm − u − 1) = 1.
        Assert.Equal(1.0, p[10] + p[14], 12);
    }

    [Fact]
    public void AQuarterSlowerCandidateIsSlowerWithAnIntervalBelowOne()
    {
        // Rounds as noisy as a busy machine's (±10 %), candidate at 75 % of the baseline's rate.
        double[] baseline = [1000, 1100, 920, 1050, 980];
        double[] candidate = [760, 700, 810, 735, 690];
        var r = RatioInterval.Estimate(baseline, candidate);
        Assert.InRange(r.Ratio, 0.70, 0.78);
        Assert.True(r.High < 1);
        Assert.True(r.AchievedConfidence >= 0.95);
        Assert.Equal("slower", AbVerdict.Judge(r, 0.02, higherIsBetter: true));
        Assert.StartsWith("throughput: candidate / baseline = 0.", AbVerdict.Sentence("throughput", r, 0.02, true));
        Assert.EndsWith("): slower", AbVerdict.Sentence("throughput", r, 0.02, true));
        // The same ratios as latency: higher is worse, so a lower candidate latency is better.
        Assert.Equal("better", AbVerdict.Judge(r, 0.02, higherIsBetter: false));
    }

    [Fact]
    public void InterleavedRoundsOfOneSpecAreNoChange()
    {
        double[] baseline = [1000, 870, 1130, 940, 1060];
        double[] candidate = [1020, 900, 1100, 960, 1010];
        var r = RatioInterval.Estimate(baseline, candidate);
        Assert.True(r.Low < 1 && r.High > 1);
        Assert.Equal(VerdictWords.WithinNoise, AbVerdict.Judge(r, 0.02, true));
    }

    [Fact]
    public void ASeparatedButTinyDifferenceIsWithinTheThresholdNotSlower()
    {
        // Complete separation, but only about 1 % apart: real perhaps, too small to claim.
        double[] baseline = [1000, 1001, 1002, 1003, 1004];
        double[] candidate = [990, 991, 992, 993, 994];
        var r = RatioInterval.Estimate(baseline, candidate);
        Assert.True(r.High < 1);
        Assert.Equal(VerdictWords.WithinNoise, AbVerdict.Judge(r, 0.02, true));
        Assert.EndsWith(": within noise (the interval excludes 1.0 but reaches into ±2%: too small to claim)", AbVerdict.Sentence("throughput", r, 0.02, true));
    }

    [Fact]
    public void ThreeRoundsASideGiveNoIntervalAndNoVerdict()
    {
        var r = RatioInterval.Estimate([1000, 1000, 1000], [500, 500, 500]);
        Assert.Null(r.Low);
        Assert.Equal(VerdictWords.NotJudged, AbVerdict.Judge(r, 0.02, true));
        Assert.Contains("at least 4 a side", AbVerdict.Sentence("throughput", r, 0.02, true));
    }

    [Fact]
    public void ARoundWithoutAValueIsRejected()
    {
        Assert.Throws<ArgumentException>(() => RatioInterval.Estimate([1000, 0], [900, 950]));
    }
}
