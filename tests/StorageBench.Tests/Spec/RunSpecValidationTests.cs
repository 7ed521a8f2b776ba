using StorageBench.Engine.Spec;

namespace StorageBench.Tests;

[Trait("Category", "Unit")]
public class RunSpecValidationTests
{
    private static IReadOnlyList<ValidationError> Errors(string json) => RunSpecParser.Parse(json).Errors;

    [Fact]
    public void BatchSizeOverTheServiceLimitNamesFieldValueAndRule()
    {
        var errors = Errors("""{ "scenario": "s", "tableInsert": { "batchSize": 150 } }""");
        var e = Assert.Single(errors);
        Assert.Equal("tableInsert.batchSize", e.Field);
        Assert.Equal("150", e.Value);
        Assert.Equal("tableInsert.batchSize: 150 exceeds the service limit of 100 entities per transaction", e.ToString());
    }

    [Fact]
    public void DefaultsAreValidAndTheQuickSpecParses()
    {
        var (spec, errors) = RunSpecParser.Parse(File.ReadAllText(Path.Combine(Repo.Root(), "specs", "quick.json")));
        Assert.Empty(errors);
        Assert.NotNull(spec!.TableInsert);
        Assert.NotNull(spec.BlobUpload);
        Assert.False(spec.Client.SdkRetries);
    }

    [Fact]
    public void TheQuickSpecRunsLongEnoughThatTwoOfItsRunsCompare()
    {
        // compare and the nightly check judge a run by its per-second noise: a count run over in 2 s left them nothing to judge.
        var spec = RunSpecParser.Parse(File.ReadAllText(Path.Combine(Repo.Root(), "specs", "quick.json"))).Spec!;
        Assert.All(new Engine.Spec.WorkloadSpec?[] { spec.TableInsert, spec.BlobUpload }, w =>
            Assert.True(w!.DurationSeconds - w.WarmupSeconds >= Engine.Comparison.ChangeRule.MinDurationSeconds, $"durationSeconds {w.DurationSeconds}"));
    }

    [Fact]
    public void EveryCommittedSpecIsValid()
    {
        var files = Directory.GetFiles(Path.Combine(Repo.Root(), "specs"), "*.json");
        Assert.True(files.Length >= 6);
        Assert.All(files, f => Assert.Empty(RunSpecParser.Parse(File.ReadAllText(f)).Errors));
    }

    [Theory]
    [InlineData("""{ "scenario": "", "tableInsert": {} }""", "scenario")]
    [InlineData("""{ "scenario": "has space", "tableInsert": {} }""", "scenario")]
    [InlineData("""{ "scenario": "s" }""", "workloads")]
    [InlineData("""{ "scenario": "s", "tableInsert": { "batchSize": 0 } }""", "tableInsert.batchSize")]
    [InlineData("""{ "scenario": "s", "tableInsert": { "entityCount": 0 } }""", "tableInsert.entityCount")]
    [InlineData("""{ "scenario": "s", "tableInsert": { "entitySizeBytes": 2000000 } }""", "tableInsert.entitySizeBytes")]
    [InlineData("""{ "scenario": "s", "tableInsert": { "concurrency": 0 } }""", "tableInsert.concurrency")]
    [InlineData("""{ "scenario": "s", "tableInsert": { "entityCount": 3, "slices": 4 } }""", "tableInsert.slices")]
    [InlineData("""{ "scenario": "s", "blobUpload": { "blockSizeBytes": 0 } }""", "blobUpload.blockSizeBytes")]
    [InlineData("""{ "scenario": "s", "blobUpload": { "blobSizeBytes": 100000, "blockSizeBytes": 1 } }""", "blobUpload.blobSizeBytes")]
    [InlineData("""{ "scenario": "s", "blobUpload": { "blobCount": 2, "slices": 3 } }""", "blobUpload.slices")]
    [InlineData("""{ "scenario": "s", "client": { "maxConnectionsPerServer": 0 }, "blobUpload": {} }""", "client.maxConnectionsPerServer")]
    public void EachBrokenRuleNamesItsField(string json, string field)
    {
        var errors = Errors(json);
        Assert.Contains(errors, e => e.Field == field);
    }

    [Fact]
    public void BatchOverTheFourMebibyteTransactionLimitIsRejected()
    {
        // 100 × 64 KiB entities are ~8.7 MB base64 on the wire.
        var e = Assert.Single(Errors("""{ "scenario": "s", "tableInsert": { "batchSize": 100, "entitySizeBytes": 65536 } }"""));
        Assert.Equal("tableInsert.batchSize", e.Field);
        Assert.Contains("4 MiB transaction limit", e.Rule);
        Assert.Empty(Errors("""{ "scenario": "s", "tableInsert": { "batchSize": 40, "entitySizeBytes": 65536 } }"""));
    }

    [Fact]
    public void UnknownFieldIsAnErrorNotASilentDefault()
    {
        var e = Assert.Single(Errors("""{ "scenario": "s", "tableInsert": { "batchCount": 10 } }"""));
        Assert.Equal("tableInsert.batchCount", e.Field);
        Assert.Contains("is not a field of tableInsert; the known fields are entityCount,", e.Rule);
    }

    [Fact]
    public void MalformedJsonIsOneClearError()
    {
        var e = Assert.Single(Errors("""{ "scenario": "s", "tableInsert": { "batchSize": "ten" } }"""));
        Assert.Equal("tableInsert.batchSize", e.Field);
    }
}
