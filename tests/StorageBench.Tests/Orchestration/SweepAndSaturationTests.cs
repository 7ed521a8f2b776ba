using StorageBench.Engine.Reports;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

[Trait("Category", "Unit")]
public class SweepAndSaturationUnitTests
{
    private static IReadOnlyList<ValidationError> Errors(string json) => RunSpecParser.Parse(json).Errors;

    [Fact]
    public void ASweepValueThatBreaksARuleIsRejectedNamingTheValueAndTheRule()
    {
        var e = Assert.Single(Errors("""{ "scenario": "s", "tableInsert": {}, "sweep": { "parameter": "tableInsert.batchSize", "values": [1, 100, 150] } }"""));
        Assert.Equal("sweep value 150 → tableInsert.batchSize: 150 exceeds the service limit of 100 entities per transaction", e.ToString());
    }

    [Theory]
    [InlineData("""{ "scenario": "s", "tableInsert": {}, "sweep": { "parameter": "tableInsert.nope", "values": [1] } }""", "sweep.parameter")]
    [InlineData("""{ "scenario": "s", "tableInsert": {}, "sweep": { "parameter": "blobUpload.blockSizeBytes", "values": [1] } }""", "sweep.parameter")]
    [InlineData("""{ "scenario": "s", "tableInsert": {}, "sweep": { "parameter": "tableInsert.batchSize", "values": [] } }""", "sweep.values")]
    [InlineData("""{ "scenario": "s", "tableInsert": {}, "sweep": { "parameter": "tableInsert.batchSize", "values": [1] }, "saturation": {} }""", "sweep/saturation")]
    [InlineData("""{ "scenario": "s", "tableInsert": {}, "saturation": { "factor": 1 } }""", "saturation.factor")]
    [InlineData("""{ "scenario": "s", "tableInsert": {}, "saturation": { "start": 1, "step": 1, "max": 1000 } }""", "saturation.max")]
    public void BrokenSweepsAndSearchesNameTheirField(string json, string field) =>
        Assert.Contains(Errors(json), e => e.Field == field);

    [Fact]
    public void AVariantChangesOnlyTheSweptFieldAndDropsTheSweep()
    {
        var spec = RunSpecParser.ParseOrThrow("""{ "scenario": "s", "tableInsert": { "entityCount": 500 }, "sweep": { "parameter": "tableInsert.batchSize", "values": [4] } }""");
        var variant = SpecVariants.Apply(spec, "tableInsert.batchSize", 4);
        Assert.Equal(4, variant.TableInsert!.BatchSize);
        Assert.Equal(500, variant.TableInsert.EntityCount);
        Assert.Null(variant.Sweep);
        Assert.Equal(0.5, SpecVariants.Apply(spec, "client.requestTimeoutSeconds", 0.5).Client.RequestTimeoutSeconds);
    }

    [Fact]
    public void SaturationSearchReportsTheLastSustainableStepAndTheKnee()
    {
        var search = new SaturationSearch(new SaturationSpec { Parameter = "tableInsert.concurrency", Start = 1, Factor = 2, Max = 64, MaxFailedShare = 0.01, MaxP99Ms = 500 });
        Assert.Equal([1, 2, 4, 8, 16, 32, 64], search.Values);

        Assert.True(search.Continue(1, [Step(ops: 100, throttled: 0, p99: 50, rate: 500)]));
        Assert.True(search.Continue(2, [Step(ops: 100, throttled: 1, p99: 80, rate: 900)]));   // 1% is within the bound
        Assert.False(search.Continue(4, [Step(ops: 100, throttled: 5, p99: 90, rate: 950)]));

        var result = search.Result();
        Assert.Equal(2, result.HighestSustainableValue);
        Assert.Equal(900, result.ThroughputAtHighest);
        Assert.Equal(4, result.KneeValue);
        Assert.Contains("failed share", result.Reason);
    }

    [Fact]
    public void AStepWhoseRequestsFailWithoutThrottlingIsNotSustainable()
    {
        var search = new SaturationSearch(new SaturationSpec { Parameter = "tableInsert.concurrency", Start = 1, Factor = 2, Max = 8 });
        Assert.True(search.Continue(1, [Step(ops: 100, throttled: 0, p99: 50, rate: 500)]));
        // Every request timed out: nothing throttled, no p99 — still the knee.
        var timedOut = Step(ops: 100, throttled: 0, p99: 0, rate: 0) with { Succeeded = 0, Failed = 100, TimedOut = 100, LatencyMs = new LatencySummary(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) };
        Assert.False(search.Continue(2, [timedOut]));
        Assert.Equal(1, search.Result().HighestSustainableValue);
        Assert.Equal(2, search.Result().KneeValue);
        Assert.Contains("no request succeeded", search.Result().Reason);

        var errors = new SaturationSearch(new SaturationSpec { Parameter = "tableInsert.concurrency", Start = 1, Factor = 2, Max = 8, MaxFailedShare = 0.01 });
        Assert.False(errors.Continue(1, [Step(ops: 100, throttled: 0, p99: 10, rate: 500) with { Failed = 5, Succeeded = 95, ServerErrors = 5 }]));
        Assert.Contains("other 5", errors.Result().Reason);
    }

    [Fact]
    public void ASweepValueThatDoesNotFitAnIntegerFieldIsAValidationErrorNotACrash()
    {
        var errors = RunSpecParser.Parse("""{ "scenario": "s", "tableInsert": {}, "saturation": { "parameter": "tableInsert.concurrency", "start": 1, "factor": 1.5, "max": 4 } }""").Errors;
        // 1, 1.5, 2.25, 3.375: three values are not whole numbers.
        Assert.Equal(3, errors.Count);
        var e = errors[0];
        Assert.Equal("saturation value 1.5 → tableInsert.concurrency", e.Field);
        Assert.Contains("whole number", e.Rule);
    }

    [Fact]
    public void SaturationSearchStopsOnTheLatencyBoundToo()
    {
        var search = new SaturationSearch(new SaturationSpec { Parameter = "tableInsert.targetOperationsPerSecond", Start = 100, Step = 100, Max = 500, MaxP99Ms = 200 });
        Assert.False(search.Continue(100, [Step(ops: 100, throttled: 0, p99: 250, rate: 100)]));
        var result = search.Result();
        Assert.Null(result.HighestSustainableValue);
        Assert.Equal(100, result.KneeValue);
        Assert.Contains("p99", result.Reason);
    }

    private static WorkloadSummary Step(long ops, long throttled, double p99, double rate) => TestData.TableWorkload(ops, throttled, p99, rate);
}

[Trait("Category", "EndToEnd")]
[Collection(OrchestrationAzuriteCollection.Name)]
public class SweepEndToEndTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task ABatchSizeSweepGivesOneVerifiedSummaryAndOneResultRowPerValue()
    {
        await using var host = await azurite.NewHubAsync();
        const string spec = """
            { "scenario": "sweep-e2e", "startDelaySeconds": 0,
              "tableInsert": { "entityCount": 200, "entitySizeBytes": 128, "concurrency": 4 },
              "sweep": { "parameter": "tableInsert.batchSize", "values": [1, 10, 100] } }
            """;
        var summary = await Pipeline.RunAsync(host, spec);

        Assert.Equal(RunStatus.Completed, summary.Status);
        Assert.Equal([1.0, 10.0, 100.0], summary.Workloads.Select(w => w.StepValue!.Value));
        Assert.Equal([200L, 20L, 2L], summary.Workloads.Select(w => w.Operations));
        Assert.All(summary.Workloads, w => Assert.True(w.Verified.Matched && w.Entities == 200));

        var rows = (await new ResultsTableStore(azurite.Target).ListRunsAsync("sweep-e2e", 10, default)).Where(r => r.GetString("RunId") == summary.RunId).ToList();
        Assert.Equal(4, rows.Count);   // one per value, and the sweep's own
        Assert.Equal([1.0, 10.0, 100.0], rows.Where(r => r.ContainsKey("StepValue")).Select(r => r.GetDouble("StepValue")!.Value).Order());
        var own = rows.Single(r => !r.ContainsKey("StepValue"));
        Assert.Equal(("tableInsert.batchSize", 3L, "Completed"), (own.GetString("StepParameter"), own.GetInt64("Steps"), own.GetString("Status")));
        Assert.Empty(await azurite.LeftoversOfAsync(summary.RunId));
        Assert.Contains("tableInsert batchSize=10", ReportWriter.Markdown(summary));
    }

    [Fact]
    public async Task ASaturationSearchThatNeverBreaksABoundReportsItsMaximum()
    {
        await using var host = await azurite.NewHubAsync();
        const string spec = """
            { "scenario": "saturation-e2e", "startDelaySeconds": 0,
              "tableInsert": { "entityCount": 300, "entitySizeBytes": 128, "batchSize": 10 },
              "saturation": { "parameter": "tableInsert.concurrency", "start": 1, "factor": 2, "max": 4, "maxP99Ms": 60000, "minThroughputGrowth": 0 } }
            """;
        var summary = await Pipeline.RunAsync(host, spec);

        Assert.Equal([1.0, 2.0, 4.0], summary.Workloads.Select(w => w.StepValue!.Value));
        Assert.Equal(4, summary.Saturation!.HighestSustainableValue);
        Assert.Null(summary.Saturation.KneeValue);
        Assert.True(summary.Saturation.ThroughputAtHighest > 0);
    }
}
