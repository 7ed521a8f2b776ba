using StorageBench.Engine.Comparison;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>
/// Every verdict speaks one vocabulary: the same outcome of the one rule reads the same in compare, ab and the nightly
/// check, and "not verified" is a state of the result, not a way its text begins.
/// </summary>
[Trait("Category", "Unit")]
public class VerdictWordsTests
{
    [Fact]
    public void NoChangeAndCannotJudgeReadTheSameInCompareAbAndTheNightlyCheck()
    {
        // compare: a 2 % drop against a 15 % floor.
        var compare = new MetricChange("throughput", "entities/s", true, NoiseKind.RunMean, 1000, 980, 0.15, 0.15, false);
        // ab: interleaved rounds of one spec.
        string ab = AbVerdict.Judge(RatioInterval.Estimate([1000, 870, 1130, 940, 1060], [1020, 900, 1100, 960, 1010]), 0.02, true);
        // nightly: tonight at the baseline's median.
        var nightly = new RegressionRule().Evaluate([new MetricHistory("TableThroughput", true, 1000, [.. Enumerable.Repeat(1000.0, 7)])]);
        Assert.All(new[] { compare.Verdict, ab, nightly.Verdict, nightly.Metrics[0].Verdict }, v => Assert.Equal(VerdictWords.WithinNoise, v));

        var tooShort = compare with { NotJudgedReason = "too short" };
        string noInterval = AbVerdict.Judge(RatioInterval.Estimate([1000, 1000, 1000], [500, 500, 500]), 0.02, true);
        var noBaseline = new RegressionRule().Evaluate([new MetricHistory("TableThroughput", true, 1000, [1000, 1000])]);
        Assert.All(new[] { tooShort.Verdict, noInterval, noBaseline.Verdict }, v => Assert.Equal(VerdictWords.NotJudged, v));
        Assert.Equal(ChangeOutcome.CannotJudge, noBaseline.Outcome);
    }

    [Theory]
    [InlineData(ChangeOutcome.Worse, Judged.Rate, "slower")]
    [InlineData(ChangeOutcome.Worse, Judged.Metric, "worse")]
    [InlineData(ChangeOutcome.Worse, Judged.Run, "regressed")]
    [InlineData(ChangeOutcome.Better, Judged.Rate, "faster")]
    [InlineData(ChangeOutcome.Better, Judged.Metric, "better")]
    [InlineData(ChangeOutcome.Better, Judged.Run, "improved")]
    [InlineData(ChangeOutcome.NoChange, Judged.Run, "within noise")]
    [InlineData(ChangeOutcome.CannotJudge, Judged.Rate, "not judged")]
    public void EachOutcomeHasOneWordPerKindOfFigure(ChangeOutcome outcome, Judged what, string word) =>
        Assert.Equal(word, VerdictWords.Of(outcome, what));

    [Fact]
    public void AVerdictCrossesJsonAsItsOutcomeAndReadsBackTheSame()
    {
        var verdict = new RegressionVerdict(ChangeOutcome.Worse, "TableThroughput 1700 vs median 2000", 14, []);
        string json = System.Text.Json.JsonSerializer.Serialize(verdict, Engine.JsonDefaults.Compact);
        Assert.Contains("\"outcome\":\"Worse\"", json);
        Assert.Contains("\"verdict\":\"regressed\"", json);
        var back = System.Text.Json.JsonSerializer.Deserialize<RegressionVerdict>(json, Engine.JsonDefaults.Compact)!;
        Assert.Equal(ChangeOutcome.Worse, back.Outcome);
    }

    [Fact]
    public void NotVerifiedIsAStateOfTheResultWhateverItsReasonSays()
    {
        // A reason that does not begin with the words is still "not verified", and a real count never is.
        var unreadable = VerificationResult.StorageUnreadable("timed out after 10 s");
        var odd = VerificationResult.NotVerified("NO such table");
        var counted = new VerificationResult(false, 100, 90, "entities", "entities in table t");
        Assert.Equal("not verified: storage could not be read after the run (timed out after 10 s)", Engine.Reports.ReportWriter.Verified(unreadable));
        Assert.Equal("not verified: NO such table", Engine.Reports.ReportWriter.Verified(odd));
        Assert.Equal("NO (90/100 entities)", Engine.Reports.ReportWriter.Verified(counted));
        Assert.Null(counted.NotVerifiedReason);
        var back = System.Text.Json.JsonSerializer.Deserialize<VerificationResult>(System.Text.Json.JsonSerializer.Serialize(odd, Engine.JsonDefaults.Compact), Engine.JsonDefaults.Compact)!;
        Assert.Equal("NO such table", back.NotVerifiedReason);
    }
}
