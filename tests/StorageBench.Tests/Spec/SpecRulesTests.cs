using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads.TableInsert;

namespace StorageBench.Tests;

/// <summary>
/// One rule per field, one message, true: a number in quotes is not a number, 1e3 is 1000, a number too large for the
/// field's type gets the field's own range (not Int32's), a block over the service's limit names that limit; and a spec
/// that can be known to measure nothing (warm-up covering every request) or to leave partitions empty is rejected.
/// </summary>
[Trait("Category", "Unit")]
public class SpecRulesTests
{
    private static ValidationError Rejected(string json, string field)
    {
        var (spec, errors) = RunSpecParser.Parse(json);
        Assert.Null(spec);
        return Assert.Single(errors, e => e.Field == field);
    }

    private static string Table(string fields) => $$"""{ "scenario": "n", "tableInsert": { {{fields}} } }""";

    private static string Blob(string fields) => $$"""{ "scenario": "n", "blobUpload": { {{fields}} } }""";

    [Fact]
    public void ANumberInQuotesIsRejectedAsNotANumber()
    {
        Assert.Equal("tableInsert.entityCount: \"1000\" must be a number (a whole number, without quotes)",
            Rejected(Table("\"entityCount\": \"1000\""), "tableInsert.entityCount").ToString());
        Assert.Equal("startDelaySeconds: \"2\" must be a number (without quotes)",
            Rejected("""{ "scenario": "n", "startDelaySeconds": "2", "tableInsert": {} }""", "startDelaySeconds").ToString());
    }

    [Fact]
    public void AWholeNumberInExponentFormIsThatNumber()
    {
        var (spec, errors) = RunSpecParser.Parse(Table("\"entityCount\": 1e3, \"batchSize\": 1.0E1"));
        Assert.Empty(errors);
        Assert.Equal(1000, spec!.TableInsert!.EntityCount);
        Assert.Equal(10, spec.TableInsert.BatchSize);
    }

    [Theory]
    [InlineData("entityCount", "1e12", "between 1 and 1000000000")]
    [InlineData("entityCount", "1000000000000", "between 1 and 1000000000")]
    [InlineData("entityCount", "1e30", "between 1 and 1000000000")]
    [InlineData("entityCount", "99999999999999999999999", "between 1 and 1000000000")]
    [InlineData("concurrency", "5000000000", "between 1 and 1024")]
    [InlineData("concurrency", "5e9", "between 1 and 1024")]
    [InlineData("concurrency", "-5e9", "between 1 and 1024")]
    [InlineData("batchSize", "1e10", "exceeds the service limit of 100 entities per transaction")]
    [InlineData("targetOperationsPerSecond", "1e400", "between 0 and 1000000")]
    public void ANumberTooLargeForItsTypeGetsTheFieldsOwnRuleShownAsWritten(string field, string value, string rule)
    {
        var e = Rejected(Table($"\"{field}\": {value}"), "tableInsert." + field);
        // As written, or the same number in plain digits (1e12 fits a long: it is 1000000000000).
        Assert.Equal(double.Parse(value, System.Globalization.CultureInfo.InvariantCulture), double.Parse(e.Value, System.Globalization.CultureInfo.InvariantCulture));
        Assert.Contains(rule, e.Rule);
        Assert.DoesNotContain("2,147,483,647", e.Rule);
        Assert.DoesNotContain("9,223,372,036,854,775,807", e.Rule);
    }

    [Fact]
    public void TheSameNumberWrittenTwoWaysGetsTheSameMessage()
    {
        Assert.Equal(Rejected(Table("\"entityCount\": 1000000000000"), "tableInsert.entityCount").Rule,
            Rejected(Table("\"entityCount\": 1e12"), "tableInsert.entityCount").Rule);
    }

    [Fact]
    public void ABlockOverTheServiceLimitNamesTheServiceLimit()
    {
        var over = Rejected(Blob("\"blockSizeBytes\": 5000000000"), "blobUpload.blockSizeBytes");
        Assert.Equal("blobUpload.blockSizeBytes: 5000000000 exceeds the service limit of 4000 MiB (4194304000 bytes) per block (Put Block)", over.ToString());
        // Under the service's limit but over what the driver holds in memory: the driver's rule.
        var big = Rejected(Blob("\"blockSizeBytes\": 3000000000"), "blobUpload.blockSizeBytes");
        Assert.Contains("must be between 1 and 268435456", big.Rule);
    }

    [Theory]
    [InlineData("\"entityCount\": 1000, \"batchSize\": 100, \"partitionCount\": 11", "entityCount 1000 in batches of 100 fills at most 10 partitions")]
    [InlineData("\"entityCount\": 1000, \"batchSize\": 100, \"partitionCount\": 20, \"slices\": 4", "over 4 slices fills at most")]
    [InlineData("\"entityCount\": 10, \"batchSize\": 1, \"partitionCount\": 100", "fills at most 10 partitions")]
    public void MorePartitionsThanBatchesIsRejected(string fields, string rule)
    {
        var e = Rejected(Table(fields), "tableInsert.partitionCount");
        Assert.Contains("leaves partitions without a single batch", e.Rule);
        Assert.Contains(rule, e.Rule);
    }

    [Theory]
    [InlineData("\"entityCount\": 1000, \"batchSize\": 100, \"partitionCount\": 10")]
    [InlineData("\"entityCount\": 1000, \"batchSize\": 100, \"partitionCount\": 10, \"slices\": 4")]
    [InlineData("\"durationSeconds\": 5, \"batchSize\": 100, \"partitionCount\": 1000")]
    public void AsManyPartitionsAsBatchesOrATimedRunIsAccepted(string fields)
    {
        Assert.Empty(RunSpecParser.Parse(Table(fields)).Errors);
    }

    [Fact]
    public void WarmupCoveringEveryRequestIsRejectedBeforeAnythingStarts()
    {
        var e = Rejected(Table("\"entityCount\": 1000, \"warmupOperations\": 100000"), "tableInsert.warmupOperations");
        Assert.Equal("tableInsert.warmupOperations: 100000 must be less than the 10 requests the run sends (entityCount 1000 in batches of 100), or nothing is measured",
            e.ToString());
        Assert.Contains("or nothing is measured", Rejected(Table("\"entityCount\": 1000, \"batchSize\": 10, \"slices\": 3, \"warmupOperations\": 34"),
            "tableInsert.warmupOperations").Rule);
        Assert.Empty(RunSpecParser.Parse(Table("\"entityCount\": 1000, \"batchSize\": 10, \"slices\": 3, \"warmupOperations\": 33")).Errors);
        Assert.Contains("Put Blocks", Rejected(Blob("\"blobCount\": 2, \"blobSizeBytes\": 8, \"blockSizeBytes\": 4, \"warmupOperations\": 4"),
            "blobUpload.warmupOperations").Rule);
    }

    [Fact]
    public void AWorkloadThatMeasuredNothingIsNotAResult()
    {
        var t0 = new DateTime(2026, 11, 22, 1, 0, 0, DateTimeKind.Utc);
        // Count mode with warmupSeconds longer than the run: every request was warm-up, known only after the run.
        var allWarmup = new SliceResult
        {
            StepId = "s", Workload = "tableInsert", SliceIndex = 0, Host = "h", StartedUtc = t0, EndedUtc = t0,
            Counts = new OutcomeCounts(), Units = 0, WarmupOperations = 10, WarmupUnits = 1000,
            LatencyHistogram = LatencyHistograms.Encode(LatencyHistograms.Create()), Timeline = Timeline.Empty,
        };
        var spec = new TableInsertSpec { EntityCount = 1000, WarmupSeconds = 3600 };
        var w = TableInsertRoom.SummarizeSlices(spec, [allWarmup], new VerificationResult(true, 1000, 1000, "entities", "test"));

        Assert.Equal("tableInsert: no request was measured: all 10 were warm-up (warmupOperations / warmupSeconds leave nothing to measure); a run that measured nothing is not a result",
            Assert.Single(SummaryCalculator.NothingMeasured([w])));
        Assert.Empty(SummaryCalculator.NothingMeasured([w], canceled: true));
        Assert.Empty(SummaryCalculator.NothingMeasured([TestData.TableWorkload()]));
    }
}
