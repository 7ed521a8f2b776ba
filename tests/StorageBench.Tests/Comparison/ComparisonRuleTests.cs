using StorageBench.Engine.Workloads.TableInsert;
using System.Text.RegularExpressions;
using StorageBench.Cli;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>The noise rule and the matching of workloads and steps, on figures made up to the measured numbers (docs/comparing.md, "The rule").</summary>
[Trait("Category", "Unit")]
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

    /// <summary>Compare and ab judge every workload by its own rate and show it in its own unit: each room, a drop that must flag and a difference that must not.</summary>
    [Theory]
    [MemberData(nameof(WorkloadListTests.Names), MemberType = typeof(WorkloadListTests))]
    public void EveryWorkloadIsJudgedByItsOwnRateInItsOwnUnit(string workload)
    {
        WorkloadFigures At(double rate) => Table(rate) with { Workload = workload };
        var slower = RunComparison.Compare(Run("a", At(6000)), Run("b", At(4800)));

        Assert.Equal("slower", slower.Workloads[0].Throughput.Verdict);
        Assert.StartsWith($"slower: {workload}", slower.Verdict());
        Assert.Equal("within noise", Single(At(6000), At(5280)).Throughput.Verdict);
        Assert.Contains(Engine.Workloads.WorkloadKind.Of(workload).RateUnit, ComparisonReport.Markdown(slower, ""));
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
    public void WithoutASpreadOrWithTooFewSecondsNothingRunLevelIsJudgedAndTheReportSaysWhy()
    {
        var oldRow = Single(Table(6000, rse: null), Table(4800)).Throughput;
        Assert.Equal("not judged", oldRow.Verdict);
        Assert.Contains("the baseline has no per-second spread", oldRow.NotJudgedReason);

        var report = ComparisonReport.ConsoleTable(RunComparison.Compare(Run("a", Table(6000, rse: null)), Run("b", Table(4800))), CompareCommand.JudgeAnyway);
        Assert.Contains("baseline: no per-second spread", report);
        Assert.Contains("verdict: not judged: the baseline has no per-second spread", report);
    }

    [Fact]
    public void AShortStepIsNotJudgedEvenWhenItLooksHalfAsFast()
    {
        // The newcomer's sweep: steps of 0.5-3.6 s. A 50% "drop" over 3 whole seconds is not claimed.
        var shortStep = Table(6000, step: 100) with { Spread = new RateSpread(6000, 600, NoiseRule.Default.MinSamples - 1) };
        var comparison = RunComparison.Compare(Run("a", shortStep, Table(1000, step: 1)), Run("b", shortStep with { Rate = 3000 }, Table(500, step: 1)));
        var step = comparison.Workloads[0];
        Assert.Equal("not judged", step.Throughput.Verdict);
        Assert.Contains($"4 whole second(s) with every slice active; at least {NoiseRule.Default.MinSamples} are needed", step.Throughput.NotJudgedReason);
        // The step that was measured long enough is judged: it must flag, and only it fails the gate.
        Assert.Equal("slower", comparison.Workloads[1].Throughput.Verdict);
        Assert.Equal(["tableInsert batchSize=1"], comparison.SlowerBy(10).Select(w => w.Label));
        Assert.Contains("tableInsert batchSize=100: throughput, peak second, latency p50, latency p95, latency p99, client CPU not judged", ComparisonReport.ConsoleTable(comparison, CompareCommand.JudgeAnyway));
    }

    [Fact]
    public void APercentileIsJudgedOnlyWithTenSamplesAboveIt()
    {
        // 300 requests: p50 (needs 20) and p95 (200) are judged, p99 (1,000) is the largest 3 and is not.
        var w = Single(Table(6000) with { LatencySamples = 300 }, Table(6000, p50: 60) with { LatencySamples = 300 });
        var byName = w.Metrics.ToDictionary(m => m.Metric);
        Assert.Equal("worse", byName["latency p50"].Verdict);
        Assert.Equal("worse", byName["latency p95"].Verdict);
        Assert.Equal("not judged", byName["latency p99"].Verdict);
        Assert.Contains("p99 needs at least 1,000 (10 above it)", byName["latency p99"].NotJudgedReason);
    }

    /// <summary>The Engine says the specs differ; how to have them judged anyway is the entry point's: the CLI's flag, the API's parameter.</summary>
    [Fact]
    public void TheApiAnswerForRunsOfDifferentSpecsHintsTheApisParameterNeverACliFlag()
    {
        var a = Run("a", Table(6000)) with { Spec = new RunSpec { Scenario = "s", TableInsert = new TableInsertSpec { EntitySizeBytes = 256 } } };
        var b = Run("b", Table(3000)) with { Spec = new RunSpec { Scenario = "s", TableInsert = new TableInsertSpec { EntitySizeBytes = 1024 } } };

        var answer = RunsApi.Compared(a, b, judgeDifferentSpecs: false);

        string markdown = (string)answer.Body["markdown"]!;
        Assert.Contains("the specs differ (not judged; add judgeDifferentSpecs=true to the query of GET /api/compare to judge anyway)", markdown);
        Assert.DoesNotMatch(new Regex("--[a-z]"), answer.Json);
        Assert.Equal("not judged: the specs differ", (string?)answer.Body["verdict"]);
        Assert.Equal("slower: tableInsert", (string?)RunsApi.Compared(a, b, judgeDifferentSpecs: true).Body["verdict"]);
        Assert.Contains("the specs differ (not judged; give --judge-different-specs to judge anyway)", ComparisonReport.ConsoleTable(RunComparison.Compare(a, b), CompareCommand.JudgeAnyway));
    }

    [Fact]
    public void RunsOfDifferentSpecsAreNamedFieldByFieldAndNotJudgedUnlessAsked()
    {
        var small = new RunSpec { Scenario = "s", TableInsert = new TableInsertSpec { EntitySizeBytes = 256, Concurrency = 1 } };
        var large = new RunSpec { Scenario = "s", TableInsert = new TableInsertSpec { EntitySizeBytes = 1024, Concurrency = 4 } };
        var a = Run("a", Table(6000)) with { Spec = small };
        var b = Run("b", Table(3000)) with { Spec = large };

        var comparison = RunComparison.Compare(a, b);
        Assert.Equal(["tableInsert.entitySizeBytes: 256 → 1024", "tableInsert.concurrency: 1 → 4"], comparison.SpecDifferences);
        Assert.Equal("not judged", comparison.Workloads[0].Throughput.Verdict);
        Assert.Equal("not judged: the specs differ", comparison.Verdict());
        Assert.Empty(comparison.SlowerBy(10));
        string report = ComparisonReport.ConsoleTable(comparison, CompareCommand.JudgeAnyway);
        Assert.Contains("the specs differ (not judged; give --judge-different-specs to judge anyway): tableInsert.entitySizeBytes: 256 → 1024; tableInsert.concurrency: 1 → 4", report);

        var asked = RunComparison.Compare(a, b, judgeDifferentSpecs: true);
        Assert.Equal("slower", asked.Workloads[0].Throughput.Verdict);
        // The same spec, written with and without its defaults, is the same spec; the scenario name does not count.
        Assert.Empty(RunComparison.Compare(a, Run("c", Table(6000)) with { Spec = small with { Scenario = "t", StartDelaySeconds = 2 } }).SpecDifferences);
    }

    [Fact]
    public void EarlierRunsOfTheScenarioSetTheBandWhenThereAreEnough()
    {
        // Steady runs (2% standard error) 12% apart: within the 15% floor by their own seconds alone. Earlier
        // runs of the scenario spread 1.4826 × MAD / median ≈ 1.2%: max(3 × √2 × 1.2%, 5%) ≈ 5.2%, so 12% is beyond it.
        var earlier = new[] { 6000.0, 6100, 5900, 6050, 5950, 6000 }.Select(r => Table(r)).ToList();
        var spread = RunToRunSpread.Of(earlier)!;
        Assert.Equal(6, spread.Runs);
        var history = new Dictionary<string, RunToRunSpread> { [RunToRunSpread.Key("tableInsert", null, null)] = spread };
        var throughput = RunComparison.Compare(Run("a", Table(6000)), Run("b", Table(5280)), history: history).Workloads[0].Throughput;
        Assert.True(throughput.FromHistory);
        Assert.Equal(3 * Math.Sqrt(2) * spread.Throughput, throughput.Band!.Value, 6);
        Assert.Equal("slower", throughput.Verdict);
        // Two runs that differ by less than the earlier runs do are not flagged.
        Assert.Equal("within noise", RunComparison.Compare(Run("a", Table(6000)), Run("b", Table(5900)), history: history).Workloads[0].Throughput.Verdict);
        // Too few earlier runs: the runs' own noise and the floor, as before.
        var few = new Dictionary<string, RunToRunSpread> { [RunToRunSpread.Key("tableInsert", null, null)] = RunToRunSpread.Of(earlier.Take(3).ToList())! };
        Assert.False(RunComparison.Compare(Run("a", Table(6000)), Run("b", Table(5280)), history: few).Workloads[0].Throughput.FromHistory);
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
        Assert.Equal("within noise: no throughput change beyond it", RunComparison.Compare(Run("a", Table(6000)), Run("b", Table(6000, p50: 40))).Verdict());
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
        string markdown = ComparisonReport.Markdown(comparison, CompareCommand.JudgeAnyway);
        Assert.Contains("## tableInsert batchSize=100", markdown);
        Assert.Contains("only in the baseline, not compared: tableInsert batchSize=1", markdown);
    }
}
