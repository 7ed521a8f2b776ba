using StorageBench.Engine.Comparison;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>The noise rule and the matching of workloads and steps, on figures made up to the measured numbers (README, "Comparing runs").</summary>
public class ComparisonRuleTests
{
    /// <summary>A table workload at <paramref name="rate"/> entities/s whose per-second rates have relative standard error <paramref name="rse"/> over 9 s.</summary>
    private static WorkloadFigures Table(double rate, double? rse = 0.02, double? step = null, double p50 = 20) =>
        new("tableInsert", step is null ? null : "tableInsert.batchSize", step, rate, rate * 1.2, p50, p50 * 2, p50 * 3, p50 * 5, 1000, 0, 0, 50,
            rse is { } r ? new RateSpread(rate, r * rate * 3, 9) : null);

    private static RunFigures Run(string id, params WorkloadFigures[] workloads) => new(id, "test", "s", RunStatus.Completed, DateTime.UnixEpoch, workloads);

    private static WorkloadComparison Single(WorkloadFigures baseline, WorkloadFigures candidate) =>
        Assert.Single(RunComparison.Compare(Run("a", baseline), Run("b", candidate)).Workloads);

    [Fact]
    public void ADifferenceWithinTheRunToRunFloorIsNoiseEvenWhenEachRunIsSteady()
    {
        // Steady runs (2% standard error) 12% apart: what separate runs of one spec do; the floor is 15%.
        var throughput = Single(Table(6000), Table(5280)).Throughput;
        Assert.Equal(-0.12, throughput.RelativeChange!.Value, 6);
        Assert.Equal(NoiseRule.Default.ThroughputFloor, throughput.Band);
        Assert.True(throughput.NoiseEstimated);
        Assert.Equal("within noise", throughput.Verdict);
    }

    [Fact]
    public void ATwentyPercentDropBetweenSteadyRunsIsSlowerAndFailsAtTenPercent()
    {
        var comparison = RunComparison.Compare(Run("a", Table(6000)), Run("b", Table(4800)));
        Assert.Equal("slower", comparison.Workloads[0].Throughput.Verdict);
        Assert.Single(comparison.SlowerBy(10));
        Assert.Empty(comparison.SlowerBy(25));   // lower by 20%, not by more than 25%
        Assert.StartsWith("slower: tableInsert", comparison.Verdict());
    }

    [Fact]
    public void NoisyRunsWidenTheBandBeyondTheFloor()
    {
        // 8% standard error each: 3 × √(8² + 8²) ≈ 34%, so the same 20% drop is within noise.
        var throughput = Single(Table(6000, rse: 0.08), Table(4800, rse: 0.08)).Throughput;
        Assert.Equal(3 * Math.Sqrt(2) * 0.08, throughput.Band!.Value, 6);
        Assert.Equal("within noise", throughput.Verdict);
        // Improvements are judged alike.
        Assert.Equal("faster", Single(Table(4800), Table(6000)).Throughput.Verdict);
    }

    [Fact]
    public void WithoutASpreadOrWithTooFewSecondsTheFloorAloneIsTheBandAndSaysSo()
    {
        var oldRow = Single(Table(6000, rse: null), Table(4800)).Throughput;
        Assert.False(oldRow.NoiseEstimated);
        Assert.Equal(NoiseRule.Default.ThroughputFloor, oldRow.Band);
        Assert.Equal("slower", oldRow.Verdict);

        var shortRun = Table(6000) with { Spread = new RateSpread(6000, 10, NoiseRule.Default.MinSamples - 1) };
        Assert.False(Single(shortRun, Table(6000)).Throughput.NoiseEstimated);

        var report = ComparisonReport.ConsoleTable(RunComparison.Compare(Run("a", Table(6000, rse: null)), Run("b", Table(4800))));
        Assert.Contains("baseline: no per-second spread", report);
        Assert.Contains("each band is the metric's floor alone", report);
    }

    [Fact]
    public void LatencyIsWorseUpwardsTheMaximumIsNotJudgedAndSharesMoveInPoints()
    {
        var w = Single(Table(6000), Table(6000, p50: 40) with { Operations = 1000, Throttled = 50, Failed = 50 });
        var byName = w.Metrics.ToDictionary(m => m.Metric);
        Assert.Equal("worse", byName["latency p50"].Verdict);
        Assert.Equal("not judged", byName["latency max"].Verdict);
        Assert.Equal(0.05, byName["throttled"].Change!.Value, 6);
        Assert.Equal("worse", byName["throttled"].Verdict);
        Assert.Equal("within noise", byName["client CPU"].Verdict);
        Assert.Equal("no throughput change beyond noise", RunComparison.Compare(Run("a", Table(6000)), Run("b", Table(6000, p50: 40))).Verdict());
    }

    [Fact]
    public void SweepsAreComparedStepByStepAndUnmatchedStepsAreListed()
    {
        var comparison = RunComparison.Compare(
            Run("a", Table(1000, step: 1), Table(5000, step: 10), Table(9000, step: 100)),
            Run("b", Table(5000, step: 10), Table(6000, step: 100), Table(9000, step: 50)));

        Assert.Equal([10.0, 100.0], comparison.Workloads.Select(w => w.StepValue!.Value));
        Assert.Equal("within noise", comparison.Workloads[0].Throughput.Verdict);
        Assert.Equal("slower", comparison.Workloads[1].Throughput.Verdict);
        Assert.Equal(["tableInsert batchSize=1"], comparison.OnlyInBaseline);
        Assert.Equal(["tableInsert batchSize=50"], comparison.OnlyInCandidate);
        Assert.Equal(["tableInsert batchSize=100"], comparison.SlowerBy(10).Select(w => w.Label));
        string markdown = ComparisonReport.Markdown(comparison);
        Assert.Contains("## tableInsert batchSize=100", markdown);
        Assert.Contains("only in the baseline, not compared: tableInsert batchSize=1", markdown);
    }
}
