using System.Globalization;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.Statistics;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// The noise rule on real runs: a real 20% slowdown is flagged and fails --fail-if-slower 10, two runs of
/// one spec are not. These verdicts depend on timing, so they run alone on the 2 cores.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(QuietAzuriteCollection.Name)]
public class ComparisonNoiseTests(AzuriteFixture azurite, ITestOutputHelper log)
{
    private static readonly NoiseRule Rule = NoiseRule.Default;

    private static string Spec(double durationSeconds, double targetOperationsPerSecond = 0) => string.Create(CultureInfo.InvariantCulture, $$"""
        { "scenario": "compare-noise", "startDelaySeconds": 1,
          "tableInsert": { "entitySizeBytes": 256, "batchSize": 100, "partitionCount": 2, "concurrency": 2, "slices": 2,
                           "durationSeconds": {{durationSeconds}}, "targetOperationsPerSecond": {{targetOperationsPerSecond}} } }
        """);

    /// <summary>
    /// Whether the run's own noise leaves a 20% change resolvable: 3 standard errors of its per-second
    /// rate under 17%, room below 20% for the rate-limited run's own (0.4–4.7% standard error measured).
    /// </summary>
    private static bool SteadyEnough(RunSummary run) =>
        Rule.Usable(run.Workloads.Single().PerSecondSpread)?.RelativeStandardError() is { } rse && Rule.Sigmas * rse < 0.17;

    [Fact]
    public async Task ARunLimitedToEightyPercentOfAnUnlimitedRunIsSlowerBeyondNoiseAndFailsTheTenPercentGate()
    {
        await using var host = await azurite.NewHubAsync();
        // Measure first: the unlimited run is the baseline. While other work shares the cores its
        // per-second rate wavers and the rule (rightly) cannot resolve 20%; then measure longer, and
        // once more if the machine stayed busy. This looks only at the baseline, never at the verdict.
        double seconds = 0;
        RunSummary? baseline = null;
        foreach (double attempt in new[] { 12.0, 30, 30 })
        {
            seconds = attempt;
            baseline = await Pipeline.RunAsync(host, Spec(seconds), azurite.Results);
            if (SteadyEnough(baseline))
            {
                break;
            }
            log.WriteLine($"baseline too unsteady to resolve 20% ({baseline.Workloads.Single().PerSecondSpread}); measuring again");
        }
        var measured = baseline!.Workloads.Single();
        Assert.True(SteadyEnough(baseline), $"the machine was too busy to resolve a 20% change: per-second rate {measured.PerSecondSpread}");

        var limited = await Pipeline.RunAsync(host, Spec(seconds, 0.8 * measured.Throughput.OperationsPerSecond), azurite.Results);
        // The specs differ (the limit is the point), so the comparison is asked to judge anyway.
        var (exit, output, errors) = await ComparisonCommandTests.CompareAsync(baseline.RunId, limited.RunId,
            "--connection-string", azurite.ConnectionString, "--fail-if-slower", "10", "--judge-different-specs");
        log.WriteLine(output);

        Assert.True(exit == 1, output + errors);
        Assert.Contains("the specs differ (judged anyway, as asked): tableInsert.targetOperationsPerSecond: 0 → ", output);
        var throughput = RunComparison.Compare(RunFigures.FromSummary(baseline, "a"), RunFigures.FromSummary(limited, "b"), judgeDifferentSpecs: true).Workloads.Single().Throughput;
        Assert.True(throughput.RelativeChange <= -0.17, $"the limited run is not ~20% slower: {throughput.RelativeChange:P1}");
        Assert.Equal("slower", throughput.Verdict);
        Assert.Contains("verdict: slower: tableInsert", output);
        Assert.Matches(@"--fail-if-slower 10: tableInsert throughput -\d+\.\d%, lower by more than 10% and beyond noise", output);
    }

    [Fact]
    public async Task TwoRunsOfOneSpecAreNotFlaggedAndPassTheTenPercentGate()
    {
        await using var host = await azurite.NewHubAsync();
        // Open loop at 1,000 entities/s, which this machine sustained in every run measured, closed-loop
        // capacity 1,900-12,000 entities/s with other builds and benchmarks on its 2 cores: both runs ask the
        // same of it, so what differs between them is the runs' own noise, which the rule must tolerate.
        // (Closed-loop runs one after another differ by whatever else the machine did meanwhile — docs/comparing.md.)
        string spec = Spec(8, targetOperationsPerSecond: 10);
        var a = await Pipeline.RunAsync(host, spec, azurite.Results);
        var b = await Pipeline.RunAsync(host, spec, azurite.Results);

        var (exit, output, errors) = await ComparisonCommandTests.CompareAsync(a.RunId, b.RunId,
            "--connection-string", azurite.ConnectionString, "--fail-if-slower", "10");
        log.WriteLine(output);

        Assert.True(exit == 0, output + errors);
        Assert.Contains("verdict: within noise: no throughput change beyond it", output);
        Assert.Matches(@"tableInsert\s+throughput\s+entities/s\s+.*within noise", output);
        Assert.Contains("--fail-if-slower 10: no throughput is lower by more than 10% beyond noise", output);
    }
}
