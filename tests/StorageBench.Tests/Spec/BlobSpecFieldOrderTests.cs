using System.Text.Json;
using CsCheck;
using StorageBench.Engine;
using StorageBench.Engine.Spec;

namespace StorageBench.Tests;

/// <summary>
/// The blob write sections share their common fields through one base record, and still read as they always did: summary.json's
/// spec writes each section's fields in this order, and a misspelled field's answer lists the known fields in the same order.
/// </summary>
[Trait("Category", "Unit")]
public class BlobSpecFieldOrderTests
{
    public static TheoryData<string, string> Sections => new()
    {
        { "blobUpload", "blobCount, blobSizeBytes, blockSizeBytes, parallelBlocks, blockRetries, slices, verifyContent, durationSeconds, warmupSeconds, warmupOperations" },
        { "pageBlobUpload", "blobCount, blobSizeBytes, pageRangeBytes, parallelRanges, retries, slices, verifyContent, durationSeconds, warmupSeconds, warmupOperations" },
        { "appendBlobUpload", "blobCount, blobSizeBytes, appendSizeBytes, parallelBlobs, slices, verifyContent, durationSeconds, warmupSeconds, warmupOperations" },
    };

    [Theory]
    [MemberData(nameof(Sections))]
    public void SummaryJsonWritesTheSectionsFieldsInTheirOrder(string section, string fields)
    {
        var (spec, errors) = RunSpecParser.Parse($$"""{ "scenario": "s", "{{section}}": { } }""");
        Assert.True(spec is not null, string.Join("; ", errors));
        using var written = JsonDocument.Parse(JsonSerializer.Serialize(spec, JsonDefaults.Options));
        Assert.Equal(fields, string.Join(", ", written.RootElement.GetProperty(section).EnumerateObject().Select(p => p.Name)));
    }

    [Theory]
    [MemberData(nameof(Sections))]
    public void AnUnknownFieldListsTheKnownFieldsInTheSameOrder(string section, string fields)
    {
        var (_, errors) = RunSpecParser.Parse($$"""{ "scenario": "s", "{{section}}": { "frobnicate": 1 } }""");
        Assert.EndsWith("the known fields are " + fields, Assert.Single(errors).Rule);
    }

    [Fact]
    public void AWrittenSectionReadsBackAsItWas() =>
        Gen.Select(Gen.Int[1, 1_000], Gen.Long[1, 1L << 40], Gen.Int[1, 64], Gen.Bool).Sample((count, size, slices, verify) =>
        {
            var spec = new RunSpec
            {
                Scenario = "s",
                BlobUpload = new() { BlobCount = count, BlobSizeBytes = size, Slices = slices, VerifyContent = verify },
                PageBlobUpload = new() { BlobCount = count, BlobSizeBytes = size, Slices = slices, VerifyContent = verify },
                AppendBlobUpload = new() { BlobCount = count, BlobSizeBytes = size, Slices = slices, VerifyContent = verify },
            };
            var read = JsonSerializer.Deserialize<RunSpec>(JsonSerializer.Serialize(spec, JsonDefaults.Options), RunSpecParser.Options);
            Assert.Equal(spec, read);
        });
}
