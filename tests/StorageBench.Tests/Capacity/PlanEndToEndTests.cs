using StorageBench.Cli;
using StorageBench.Engine.Reports;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// A plan tested by running it, on Azurite: measure (a concurrency search and a partition sweep), ask `storagebench plan`
/// for 80% of the highest rate measured, run the spec it writes, and hold it to 95% of that target. The service's
/// capacity is the test's, not the machine's: a loopback proxy in front of Azurite passes at most 10 batches a second,
/// each held 100 ms, so what is measured is that cap (1,000 entities/s), far below what even a busy 2-core machine
/// drives — on a shared machine Azurite's own rate moves by a factor of several from one minute to the next, and a plan
/// made from one moment cannot be held to 95% at another. The written spec holds the target with an open loop (a slice
/// behind schedule catches up) and in-flight room beyond what the measured p99 needs.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(QuietAzuriteCollection.Name)]
public class PlanEndToEndTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    private const double CapBatchesPerSecond = 10;
    private static readonly TimeSpan Hold = TimeSpan.FromMilliseconds(100);

    private const string Search = """
        { "scenario": "plan-e2e-search", "client": { "primeRounds": 2 },
          "tableInsert": { "entitySizeBytes": 1024, "batchSize": 100, "partitionCount": 1, "durationSeconds": 8, "warmupSeconds": 1 },
          "saturation": { "parameter": "tableInsert.concurrency", "start": 1, "factor": 2, "max": 16, "maxFailedShare": 0.01, "maxP99Ms": 5000 } }
        """;

    private const string PartitionSweep = """
        { "scenario": "plan-e2e-partitions", "client": { "primeRounds": 2 },
          "tableInsert": { "entitySizeBytes": 1024, "batchSize": 100, "concurrency": 8, "durationSeconds": 8, "warmupSeconds": 1 },
          "sweep": { "parameter": "tableInsert.partitionCount", "values": [2, 4] } }
        """;

    [Fact]
    public async Task APlanFor80PercentOfTheHighestMeasuredRateReachesAtLeast95PercentOfItWhenRun()
    {
        static bool Batch(Microsoft.AspNetCore.Http.HttpRequest r) => r.Method == "POST" && r.Path.Value!.EndsWith("$batch");
        var (proxy, capped) = await FaultProxy.CappedInFrontOfAsync(azurite.ConnectionString, "TableEndpoint", Batch, CapBatchesPerSecond, Hold);
        await using var _ = proxy;
        await using var host = await azurite.NewHubAsync(capped);
        string dir = Path.Combine(Path.GetTempPath(), "sb-plan-" + Guid.NewGuid().ToString("N")[..8]);
        try
        {
            var search = await Pipeline.RunAsync(host, Search, azurite.Results);
            var sweep = await Pipeline.RunAsync(host, PartitionSweep, azurite.Results);
            Assert.Equal((RunStatus.Completed, RunStatus.Completed), (search.Status, sweep.Status));
            await ReportWriter.WriteAsync(search, Path.Combine(dir, "search"), default);
            await ReportWriter.WriteAsync(sweep, Path.Combine(dir, "partitions"), default);
            var measured = search.Workloads.Concat(sweep.Workloads).Select(w => (w.StepParameter, w.StepValue, Rate: w.Throughput.EntitiesPerSecond!.Value)).ToList();
            double highest = measured.Max(m => m.Rate);
            Assert.InRange(highest, 0, CapBatchesPerSecond * 100 * 1.05);   // what was measured is the cap, never more
            double target = Math.Round(0.8 * highest);
            output.WriteLine("measured: " + string.Join("; ", measured.Select(m => $"{m.StepParameter}={m.StepValue}: {m.Rate:0} entities/s")));

            string specFile = Path.Combine(dir, "plan.json");
            var (exit, text) = await CliAsync("plan", "--target", $"{target}", "--from", Path.Combine(dir, "search"), "--from", Path.Combine(dir, "partitions"), "--write-spec", specFile);
            output.WriteLine(text);
            Assert.True(exit == 0, text);
            // Whichever unit binds first (on a busy machine it can be "driver cores"): named, with its capacity.
            Assert.Matches(@"bottleneck\s+\w[\w ]*: [\d.]+ × [\d,]+ = [\d,]+ entities/s", text);
            Assert.Contains("measured: run " + search.RunId, text);

            var spec = RunSpecParser.ParseOrThrow(File.ReadAllText(specFile));
            Assert.Equal(target / 100, spec.TableInsert!.TargetOperationsPerSecond, 3);   // open loop at the target
            var run = await Pipeline.RunAsync(host, spec, azurite.Results);
            var w = Assert.Single(run.Workloads);
            double reached = w.Throughput.EntitiesPerSecond!.Value;
            output.WriteLine($"plan run {run.RunId}: target {target:0} entities/s (80% of {highest:0}); reached {reached:0.0} entities/s ({reached / target:P1}) " +
                $"over {w.DurationSeconds:0.00} s, {w.Entities} entities, p50 {w.LatencyMs.P50:0.#} ms, p99 {w.LatencyMs.P99:0.#} ms, failed {w.Failed}, " +
                $"slices {spec.TableInsert.Slices}, partitions {spec.TableInsert.PartitionCount}, in flight {spec.TableInsert.Concurrency}");
            Assert.True(run.Status == RunStatus.Completed && w.Verified.Matched, string.Join("; ", run.Errors));
            Assert.True(reached >= 0.95 * target, $"the plan's run reached {reached:0} entities/s, {reached / target:P1} of the {target:0} planned");

            // The saturation report shows where the plan operates on the measured curve.
            var opRun = text.Contains("from run " + search.RunId, StringComparison.Ordinal) ? "search" : "partitions";
            Assert.Contains("storagebench plan: ", File.ReadAllText(Path.Combine(dir, opRun, "summary.html")));

            // The same runs read back from the results table by run id plan the same operating point.
            var (fromTable, tableText) = await CliAsync("plan", "--target", $"{target}", "--from", search.RunId, "--from", sweep.RunId, "--connection-string", azurite.ConnectionString);
            Assert.True(fromTable == 0, tableText);
            Assert.Contains(text.Split('\n')[2].Split(": ")[0], tableText);   // "  from run …, parameter = value"

            // Beyond what Azurite was measured to take: refused, with the reason.
            var (beyond, refusal) = await CliAsync("plan", "--target", $"{Math.Round(3 * highest)}", "--from", Path.Combine(dir, "search"), "--from", Path.Combine(dir, "partitions"));
            Assert.Equal(1, beyond);
            Assert.Contains("refused: ", refusal);
            Assert.Contains("is beyond the highest rate measured against Azurite", refusal);
        }
        finally
        {
            if (Directory.Exists(dir))
            {
                Directory.Delete(dir, recursive: true);
            }
        }
    }

    private static async Task<(int Exit, string Output)> CliAsync(params string[] args)
    {
        var stdout = new StringWriter();
        var stderr = new StringWriter();
        int exit = await CliApp.RunAsync(args, stdout, stderr, default);
        return (exit, stdout + stderr.ToString());
    }
}
