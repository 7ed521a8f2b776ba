using StorageBench.Engine.Workloads.TableInsert;
using System.Text.Json;
using StorageBench.Cli;
using StorageBench.Engine;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>
/// Issue 27, item 3: a gate that cannot judge says so (exit 3 and one line naming what to change), and compare, ab and
/// the nightly check decide "slower / faster / no change / cannot judge" by one rule (<see cref="ChangeRule"/>).
/// Every verdict here has a case that must flag and one that must not.
/// </summary>
[Trait("Category", "Unit")]
public class GateTests
{
    /// <summary>A table workload at <paramref name="rate"/> entities/s measured over <paramref name="seconds"/> whole seconds with 2% standard error.</summary>
    private static WorkloadSummary Table(double rate, int seconds, long samples = 5_000) => TestData.TableWorkload(ops: samples, rate: rate) with
    {
        PerSecondSpread = new RateSpread(rate, 0.02 * rate * Math.Sqrt(seconds), seconds),
        DurationSeconds = seconds + 1,
    };

    private static async Task<string> SummaryFileAsync(WorkloadSummary workload)
    {
        string dir = Path.Combine(Path.GetTempPath(), "sb-gate-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        string file = Path.Combine(dir, "summary.json");
        await File.WriteAllTextAsync(file, JsonSerializer.Serialize(TestData.Run("gate", DateTime.UtcNow, workload), JsonDefaults.Options));
        return file;
    }

    private static async Task<(int Exit, string Output, string Errors)> CompareAsync(WorkloadSummary a, WorkloadSummary b, string percent = "10")
    {
        var stdout = new StringWriter();
        var stderr = new StringWriter();
        int exit = await CliApp.RunAsync(["compare", await SummaryFileAsync(a), await SummaryFileAsync(b), "--fail-if-slower", percent], stdout, stderr, default);
        return (exit, stdout.ToString(), stderr.ToString());
    }

    [Fact]
    public async Task CompareFailIfSlowerOnRunsTooShortToJudgeExitsThreeNamingWhatToChange()
    {
        // The case: −24.8 % between two runs measured over 4 whole seconds each (the quick runs, the docs' 5-s ab specs).
        var (exit, output, errors) = await CompareAsync(Table(1000, seconds: 4), Table(752, seconds: 4));

        Assert.Equal(CliApp.CouldNotJudge, exit);
        string line = Assert.Single(errors.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("--fail-if-slower 10: could not judge tableInsert throughput: the baseline's measured window has 4 whole second(s)", line);
        Assert.Contains($"set durationSeconds ≥ {ChangeRule.MinDurationSeconds}", line);
        Assert.DoesNotContain("no throughput is lower", output);
    }

    [Fact]
    public async Task CompareFailIfSlowerFlagsTheSameDropMeasuredLongEnoughAndPassesNoChange()
    {
        var slower = await CompareAsync(Table(1000, seconds: 9), Table(752, seconds: 9));
        Assert.Equal(1, slower.Exit);
        Assert.Contains("--fail-if-slower 10: tableInsert throughput -24.8%", slower.Output);

        var same = await CompareAsync(Table(1000, seconds: 9), Table(990, seconds: 9));
        Assert.Equal(0, same.Exit);
        Assert.Contains("--fail-if-slower 10: no throughput is lower by more than 10% beyond noise", same.Output);
        Assert.Equal("", same.Errors);
    }

    [Fact]
    public void CompareAbAndTheNightlyCheckDecideAlikeThroughTheOneRule()
    {
        // A 20% drop against a band of about 10% (ab: a 2% threshold) must flag in all three; a 1% drop must not.
        foreach (var (drop, flagged) in new[] { (0.20, true), (0.01, false) })
        {
            double candidate = 1000 * (1 - drop);
            var history = new Dictionary<string, RunToRunSpread> { [RunToRunSpread.Key("tableInsert", null, null)] = new RunToRunSpread(9, 0.10 / 3 / Math.Sqrt(2), null, null) };
            var compare = RunComparison.Compare(RunFigures.FromSummary(TestData.Run("s", DateTime.UnixEpoch, Table(1000, 9)), "a"),
                RunFigures.FromSummary(TestData.Run("s", DateTime.UnixEpoch, Table(candidate, 9)), "b"), history: history).Workloads[0].Throughput;
            var nightly = new RegressionRule().Evaluate([new MetricHistory("TableEntitiesPerSecond", true, candidate, [1000, 1010, 990, 1005, 995, 1000, 1000])]);
            var ab = AbVerdict.Judge(RatioInterval.Estimate([1000, 1010, 990, 1005, 995], [candidate, candidate * 1.01, candidate * 0.99, candidate, candidate]), 0.02, true);

            Assert.Equal(flagged ? "slower" : "within noise", compare.Verdict);
            Assert.Equal(flagged ? VerdictWords.Regressed : VerdictWords.WithinNoise, nightly.Verdict);
            Assert.Contains(ab, flagged ? ["slower"] : new[] { VerdictWords.WithinNoise });
        }
        // The decision itself: all of the change beyond the band on one side, else no change.
        Assert.Equal(ChangeOutcome.Worse, ChangeRule.Decide(-0.2, -0.15, 0.1, higherIsBetter: true).Outcome);
        Assert.Equal(ChangeOutcome.Better, ChangeRule.Decide(-0.2, -0.15, 0.1, higherIsBetter: false).Outcome);
        Assert.Equal(ChangeOutcome.NoChange, ChangeRule.Decide(-0.2, 0.05, 0.1, higherIsBetter: true).Outcome);
    }

    [Fact]
    public void TheNightlyCheckDoesNotJudgeAP99ItsSamplesCannotSupport()
    {
        var p99 = new[] { 100.0, 101, 99, 100, 102, 98 };
        var supported = new RegressionRule().Evaluate([new MetricHistory("TableEntitiesPerSecond", true, 1000, [1000, 1000, 1000, 1000, 1000]),
            new MetricHistory("TableLatencyP99Ms", false, 150, p99)]);
        Assert.Equal(VerdictWords.Regressed, supported.Verdict);

        var input = RegressionInput.From("s", "r", DateTime.UnixEpoch, [Table(1000, 9, samples: 90)]);
        string why = Assert.Single(input.NotJudgedMetrics!).Value;
        Assert.Contains("90 latency samples; p99 needs at least 1,000", why);
        var unsupported = new RegressionRule().Evaluate([new MetricHistory("TableEntitiesPerSecond", true, 1000, [1000, 1000, 1000, 1000, 1000]),
            new MetricHistory("TableLatencyP99Ms", false, 150, p99) { NotJudgedReason = why }]);
        Assert.Equal(VerdictWords.WithinNoise, unsupported.Verdict);
        Assert.Contains("TableLatencyP99Ms not judged", unsupported.Reason);
    }

    [Fact]
    public void TooFewBaselineRunsSaysHowManyMoreAreNeeded()
    {
        var verdict = new RegressionRule().Evaluate([new MetricHistory("TableEntitiesPerSecond", true, 1000, [1000, 1010])]);
        Assert.Equal(VerdictWords.NotJudged, verdict.Verdict);
        Assert.Contains("3 more run(s) of the scenario", verdict.Reason);
    }

    [Fact]
    public void AbJudgesAPercentileOnlyWhenEveryRoundHasTheSamplesForIt()
    {
        // The case: p99 from 67–90 samples a round was judged. Now p50 (needs 20) is, p99 (needs 1,000) is not.
        static List<AbCommand.AbRun> Rounds(long samples, double candidateP99) => [.. Enumerable.Range(1, 4).SelectMany(r => new[]
        {
            new AbCommand.AbRun(r, "baseline", Figures(1000 + r, 20, samples)),
            new AbCommand.AbRun(r, "candidate", Figures(1000 - r, candidateP99, samples)),
        })];
        var spec = new RunSpec { Scenario = "s", TableInsert = new TableInsertSpec() };
        var options = new AbOptions("a.json", "b.json", Rounds: 4, FailIfSlowerPercent: 10);

        string few = AbCommand.Report(options, spec, spec, Rounds(80, 60), out bool slower, out string? cannotJudge);
        Assert.Contains("- tableInsert latency p99: not judged: round 1's baseline has 80 latency samples; p99 needs at least 1,000 (10 above it)", few);
        Assert.Contains("tableInsert latency p50: candidate / baseline", few);
        Assert.False(slower);
        Assert.Null(cannotJudge);   // throughput was judged: the gate could

        string many = AbCommand.Report(options, spec, spec, Rounds(5_000, 60), out _, out _);
        Assert.Contains("**tableInsert latency p99: candidate / baseline = 3.00", many);
        Assert.Contains("): worse**", many);
    }

    private static RunFigures Figures(double rate, double p99, long samples) =>
        RunFigures.FromSummary(TestData.Run("s", DateTime.UnixEpoch, TestData.TableWorkload(ops: samples, rate: rate, p99: p99) with { DurationSeconds = 5 }), "x");
}
