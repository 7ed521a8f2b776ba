using StorageBench.Engine.Comparison;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

[Trait("Category", "Unit")]
public class RegressionRuleTests
{
    private static readonly RegressionRule Rule = new();

    private static double[] History(int nights, double center, double spread, int seed)
    {
        var rng = new Random(seed);
        return [.. Enumerable.Range(0, nights).Select(_ => center + spread * (2 * rng.NextDouble() - 1))];
    }

    private static RegressionVerdict Throughput(double current, double[] baseline) =>
        Rule.Evaluate([new MetricHistory("TableEntitiesPerSecond", HigherIsBetter: true, current, baseline)]);

    [Fact]
    public void AStableHistoryAndAnOrdinaryNightIsOk()
    {
        var verdict = Throughput(1_990, History(14, 2_000, 20, seed: 1));
        Assert.Equal(VerdictWords.WithinNoise, verdict.Verdict);
        Assert.Equal(14, verdict.BaselineRuns);
    }

    [Fact]
    public void AFifteenPercentDropIsARegression()
    {
        var verdict = Throughput(1_700, History(14, 2_000, 20, seed: 2));
        Assert.Equal(VerdictWords.Regressed, verdict.Verdict);
        Assert.Contains("TableEntitiesPerSecond 1700", verdict.Reason);
    }

    [Fact]
    public void ANoisyHistoryWithoutADropIsOkEvenForANightAtTheLowEdge()
    {
        // ±15% night-to-night noise; tonight is 12% under the middle, as several nights before it were.
        var noisy = History(14, 2_000, 300, seed: 3);
        Assert.Equal(VerdictWords.WithinNoise, Throughput(1_760, noisy).Verdict);
        // The same night against a quiet history would be a regression: the band follows the noise.
        Assert.Equal(VerdictWords.Regressed, Throughput(1_760, History(14, 2_000, 20, seed: 3)).Verdict);
    }

    [Fact]
    public void OneBadNightInTheBaselineDoesNotMoveIt()
    {
        var baseline = History(14, 2_000, 20, seed: 4);
        baseline[3] = 200;   // an outage night: a mean would drop ~6%, the median does not
        Assert.Equal(VerdictWords.Regressed, Throughput(1_700, baseline).Verdict);
        Assert.Equal(VerdictWords.WithinNoise, Throughput(1_985, baseline).Verdict);
    }

    [Fact]
    public void LatencyRegressesUpwardsAndFasterIsAnImprovement()
    {
        var p99 = History(10, 100, 2, seed: 5);
        Assert.Equal(VerdictWords.Regressed, Rule.Evaluate([new MetricHistory("TableLatencyP99Ms", false, 130, p99)]).Verdict);
        Assert.Equal(VerdictWords.Improved, Rule.Evaluate([new MetricHistory("TableLatencyP99Ms", false, 70, p99)]).Verdict);
        Assert.Equal(VerdictWords.Improved, Throughput(2_600, History(14, 2_000, 20, seed: 6)).Verdict);
    }

    [Fact]
    public void TooFewEarlierNightsIsInsufficientBaselineNotOk()
    {
        var verdict = Throughput(100, [2_000, 2_010, 1_990]);
        Assert.Equal(VerdictWords.NotJudged, verdict.Verdict);
        Assert.Contains("3 earlier", verdict.Reason);
    }
}
