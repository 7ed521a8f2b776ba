using StorageBench.Engine.Spec;
using StorageBench.Orchestration;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>The knee rule alone: throughput that stops growing with the load ends the search; throughput that grows does not.</summary>
[Trait("Category", "Unit")]
public class SaturationKneeRuleTests
{
    private static readonly SaturationSpec Spec = new() { Parameter = "tableInsert.concurrency", Start = 1, Factor = 2, Max = 64, MaxP99Ms = 60_000 };

    [Fact]
    public void FlatThroughputWithRisingLatencyIsPastTheKnee()
    {
        // The newcomer's saturation-concurrency run: ~4,000-4,600 entities/s from 1 to 64 in flight while p50 rose.
        var search = new SaturationSearch(Spec);
        Assert.True(search.Continue(1, [TestData.TableWorkload(p99: 40, rate: 2000)]));
        Assert.True(search.Continue(2, [TestData.TableWorkload(p99: 60, rate: 4012)]));
        Assert.False(search.Continue(4, [TestData.TableWorkload(p99: 120, rate: 4300)]));   // +7% for twice the load

        var result = search.Result();
        Assert.Equal((2.0, 4012.0, 4.0, 4300.0), (result.HighestSustainableValue!.Value, result.ThroughputAtHighest!.Value, result.KneeValue!.Value, result.ThroughputAtKnee!.Value));
        Assert.Equal("throughput-growth", result.StoppedBy);
        Assert.Contains("past the knee at 4: throughput grew +7.2% (4,012 → 4,300 entities/s) while tableInsert.concurrency grew +100% (2 → 4)", result.Reason);
        Assert.Contains("Little's law", result.Reason);
    }

    [Fact]
    public void ThroughputThatKeepsGrowingRunsToTheMaximumAndZeroTurnsTheRuleOff()
    {
        var growing = new SaturationSearch(Spec with { Max = 4 });
        Assert.True(growing.Continue(1, [TestData.TableWorkload(rate: 1000)]));
        Assert.True(growing.Continue(2, [TestData.TableWorkload(rate: 1150)]));   // +15%: still worth it
        Assert.True(growing.Continue(4, [TestData.TableWorkload(rate: 1300)]));
        Assert.Equal(("max-reached", 4.0), (growing.Result().StoppedBy, growing.Result().HighestSustainableValue!.Value));
        Assert.Null(growing.Result().KneeValue);

        var off = new SaturationSearch(Spec with { MinThroughputGrowth = 0 });
        Assert.True(off.Continue(1, [TestData.TableWorkload(rate: 1000)]));
        Assert.True(off.Continue(2, [TestData.TableWorkload(rate: 900)]));
    }

    [Fact]
    public void ABoundBrokenIsNamedAsTheRuleThatStopped()
    {
        var search = new SaturationSearch(Spec with { MaxP99Ms = 100 });
        Assert.False(search.Continue(1, [TestData.TableWorkload(p99: 150, rate: 1000)]));
        Assert.Equal("p99", search.Result().StoppedBy);
    }
}

/// <summary>
/// The search against a service whose capacity is known: a loopback proxy in front of Azurite passes at most
/// 10 batches a second and holds each 300 ms. Below the cap, throughput is n / (300 ms + Azurite's time); the cap
/// bites at n* = 10/s × that time (about 3.3 in flight), and the knee must be found within one step of it.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(OrchestrationAzuriteCollection.Name)]
public class SaturationKneeTests(AzuriteFixture azurite, ITestOutputHelper log)
{
    private const double CapPerSecond = 10;
    private static readonly TimeSpan Hold = TimeSpan.FromMilliseconds(300);

    [Fact]
    public async Task ACappedServiceHasItsKneeFoundWithinOneStepOfWhereTheCapBites()
    {
        static bool Batch(Microsoft.AspNetCore.Http.HttpRequest r) => r.Method == "POST" && r.Path.Value!.EndsWith("$batch");
        const string spec = """
            { "scenario": "knee-cap", "startDelaySeconds": 1, "client": { "primeRounds": 0 },
              "tableInsert": { "entitySizeBytes": 128, "batchSize": 10, "partitionCount": 1, "slices": 1, "durationSeconds": 4, "warmupSeconds": 1 },
              "saturation": { "parameter": "tableInsert.concurrency", "start": 1, "factor": 2, "max": 64, "maxP99Ms": 60000, "maxFailedShare": 0.01 } }
            """;
        var (proxy, target) = await FaultProxy.CappedInFrontOfAsync(azurite.ConnectionString, "TableEndpoint", Batch, CapPerSecond, Hold);
        await using (proxy)
        {
            var summary = await Pipeline.RunAsync(azurite, target, spec);
            foreach (var w in summary.Workloads)
            {
                log.WriteLine($"{w.StepValue}: {w.Throughput.OperationsPerSecond:0.0} batches/s, mean {w.LatencyMs.Mean:0} ms");
            }
            var sat = summary.Saturation!;
            log.WriteLine(sat.Reason);

            // Where the cap bites, from what one request took alone at 1 in flight (the proxy's 300 ms and Azurite's time).
            double serviceSeconds = summary.Workloads[0].LatencyMs.Mean!.Value / 1000;
            double bites = CapPerSecond * serviceSeconds;
            double firstStepAtCap = summary.Workloads.Select(w => w.StepValue!.Value).Where(v => v >= bites).DefaultIfEmpty(double.NaN).Min();
            Assert.Equal("throughput-growth", sat.StoppedBy);
            Assert.True(sat.KneeValue == firstStepAtCap || sat.KneeValue == 2 * firstStepAtCap,
                $"cap bites at {bites:0.0} in flight (first step at it: {firstStepAtCap}); knee {sat.KneeValue}: {sat.Reason}");
            Assert.Equal(sat.KneeValue / 2, sat.HighestSustainableValue);
            // Never above the cap: 10 batches of 10 entities a second.
            Assert.InRange(sat.ThroughputAtKnee!.Value, 0, CapPerSecond * 10 * 1.05);
            Assert.Contains("Little's law", sat.Reason);
            Assert.Contains("stopped by the throughput-growth rule", Engine.Reports.ReportWriter.Markdown(summary));
        }
    }
}
