using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.PageBlobUpload;
using System.Globalization;
using Azure.Storage.Blobs.Specialized;
using CsCheck;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>The page blob room against a real Azurite, through its own methods: plan, run, verify, summarize.</summary>
[Trait("Category", "Azurite")]
[Collection(AzuriteCollection.Name)]
public class PageBlobUploadTests(AzuriteFixture azurite)
{
    private static readonly PageBlobUploadRoom Room = PageBlobUploadRoom.Instance;

    // 3 blobs of 1 MiB + 512 B in ranges of 256 KiB: 4 whole ranges and one of a single page per blob.
    private static readonly PageBlobUploadSpec Small = new()
    {
        BlobCount = 3, BlobSizeBytes = 1_048_576 + 512, PageRangeBytes = 262_144, ParallelRanges = 2, Slices = 2, VerifyContent = true,
    };

    [Theory]
    [InlineData(ClientSettings.LeanDriver)]
    [InlineData(ClientSettings.SdkDriver)]
    public async Task EveryPageLandsAndTheSummaryCountsPutPagesCreatesAndGoodput(string driver)
    {
        var (spec, step, slices) = await RunAsync(Small, driver);

        Assert.Equal(3, slices.Sum(s => s.Objects));
        Assert.Equal(3 * 5 + 3, slices.Sum(s => s.Counts.Succeeded));   // 5 Put Pages and 1 create per blob
        Assert.Equal(0, slices.Sum(s => s.Counts.Failed));
        var verified = await VerifyAsync(spec, step, slices);
        Assert.True(verified.Matched, verified.Detail);
        Assert.Equal(3 * Small.BlobSizeBytes, verified.Actual);

        var summary = Room.Summarize(spec, slices, verified);
        Assert.Equal(3, summary.BlobsCommitted);
        Assert.Equal(0, summary.UnstoredShare);
        Assert.Equal(15, summary.LatencyMs.Samples);   // one sample per Put Page: the creates are counted, not timed
        Assert.Equal(3 * Small.BlobSizeBytes, summary.Bytes);
        Assert.True(summary.Throughput.MegabytesPerSecond > 0);
        Assert.Equal("MB/s", summary.PeakUnit);
        var lines = summary.Transactions.ToDictionary(l => l.Kind, l => l.Requests);
        Assert.Equal(15, lines["Put Page"]);
        Assert.Equal(3, lines["Put Blob (page blob create)"]);
        Assert.Equal(3, lines["Get Page Ranges"]);
        Assert.True(lines["content reads (Get Blob)"] >= 3);
        Assert.False(lines.ContainsKey("SDK retries"));
    }

    /// <summary>What storage holds is checked, not what the run said: a page overwritten, a page cleared, a blob deleted each fail it.</summary>
    [Fact]
    public async Task VerificationFailsWhenStorageHoldsOtherThanWasReported()
    {
        var (spec, step, slices) = await RunAsync(Small with { Slices = 1 }, ClientSettings.LeanDriver);
        Assert.True((await VerifyAsync(spec, step, slices)).Matched);
        var container = azurite.Blobs.GetBlobContainerClient(step.TargetName);
        PageBlobClient Blob(int n) => container.GetPageBlobClient(BlobNames.Of(slices[0].AttemptId, 0, n));

        // Other bytes in a page: same length, every page written; only the content check sees it.
        await Blob(0).UploadPagesAsync(new MemoryStream(new byte[512]), 512);
        var overwritten = await VerifyAsync(spec, step, slices);
        Assert.False(overwritten.Matched, overwritten.Detail);
        Assert.Contains("1 whose MD5 differs", overwritten.Detail);
        Assert.True((await VerifyAsync(spec.PageBlobUpload! with { VerifyContent = false }, step, slices)).Matched);

        // A page cleared: the blob keeps its length, but it is no longer wholly written.
        await Blob(1).ClearPagesAsync(new Azure.HttpRange(0, 512));
        var cleared = await VerifyAsync(spec.PageBlobUpload! with { VerifyContent = false }, step, slices);
        Assert.False(cleared.Matched, cleared.Detail);
        Assert.Contains("1 created but not wholly written", cleared.Detail);

        // A blob gone: of the three reported, one is left whole (the overwritten one, its content unchecked).
        await Blob(2).DeleteAsync();
        var deleted = await VerifyAsync(spec.PageBlobUpload! with { VerifyContent = false }, step, slices);
        Assert.False(deleted.Matched);
        Assert.Equal(Small.BlobSizeBytes, deleted.Actual);
        Assert.StartsWith("1 page blobs wholly written (reported 3) of 2,", deleted.Detail);
    }

    /// <summary>
    /// A Put Page the service keeps throttling past its retries fails its blob: every attempt is counted as throttled, the
    /// blob is left out of goodput and reported failed, and storage holds it created but not wholly written, as reported.
    /// </summary>
    [Theory]
    [InlineData(ClientSettings.LeanDriver)]
    [InlineData(ClientSettings.SdkDriver)]
    public async Task APageThrottledPastItsRetriesFailsItsBlobAndOnlyItsBlob(string driver)
    {
        // Blob 0's second range is answered 503 on every attempt: 1 send and 1 retry.
        var (proxy, target) = await FaultProxy.InFrontOfAsync(azurite.ConnectionString, "BlobEndpoint",
            r => r.Query["comp"] == "page" && (r.Path.Value ?? "").EndsWith("-0000000", StringComparison.Ordinal) && r.Headers["x-ms-range"] == "bytes=262144-524287",
            _ => Fault.Throttle);
        await using var _ = proxy;
        var section = Small with { Slices = 1, BlobCount = 2, Retries = 1, ParallelRanges = 1, VerifyContent = false };
        var (spec, step, slices) = await RunAsync(section, driver, target);
        var slice = Assert.Single(slices);

        Assert.Equal(2, proxy.Injected);
        Assert.Equal(2, slice.Counts.Throttled);
        Assert.Equal(1, slice.Objects);
        Assert.Equal(1, slice.ObjectsFailed);
        var verified = await VerifyAsync(spec, step, slices);
        Assert.True(verified.Matched, verified.Detail);
        Assert.Contains("1 page blobs wholly written (reported 1) of 2, 1 created but not wholly written", verified.Detail);
        var summary = Room.Summarize(spec, slices, verified);
        Assert.Equal(1, summary.BlobsFailed);
        Assert.Equal(section.BlobSizeBytes, summary.Bytes);                  // goodput: the whole blob only
        Assert.Equal(262_144, summary.BytesSentForFailedBlobs);              // blob 0's first range landed, then it stopped
        Assert.Equal(2, summary.Transactions.Single(l => l.Kind == "Put Page").Failed);
    }

    /// <summary>Another execution's blobs are deleted and reported as discarded, never counted.</summary>
    [Fact]
    public async Task AnotherExecutionsBlobsAreDeletedNotCounted()
    {
        var (spec, step, slices) = await RunAsync(Small with { Slices = 1, BlobCount = 1, VerifyContent = false }, ClientSettings.LeanDriver);
        var container = azurite.Blobs.GetBlobContainerClient(step.TargetName);
        var stray = container.GetPageBlobClient(BlobNames.Of("0badbad0", 0, 0));
        await stray.CreateAsync(512);

        var verified = await VerifyAsync(spec, step, slices);

        Assert.True(verified.Matched, verified.Detail);
        Assert.Equal(1, verified.Discarded);
        Assert.False(await stray.ExistsAsync());
    }

    /// <summary>Through the step (plan, fan-out, verify, summary, cleanup) beside a block upload of the same bytes, on either driver.</summary>
    [Theory]
    [InlineData(ClientSettings.LeanDriver)]
    [InlineData(ClientSettings.SdkDriver)]
    public async Task PageOrBlockRunsAsOneStepAndLeavesNothingBehind(string driver)
    {
        var summary = await Pipeline.RunAsync(azurite, null, $$"""
            {
              "scenario": "page-or-block", "startDelaySeconds": 1, "client": { "driver": "{{driver}}", "primeRounds": 1 },
              "blobUpload": { "blobCount": 1, "blobSizeBytes": 1048576, "blockSizeBytes": 262144, "parallelBlocks": 2 },
              "pageBlobUpload": { "blobCount": 1, "blobSizeBytes": 1048576, "pageRangeBytes": 262144, "parallelRanges": 2, "verifyContent": true }
            }
            """);

        Assert.Equal(RunStatus.Completed, summary.Status);
        var page = Assert.Single(summary.Workloads, w => w.Workload == PageBlobUploadRoom.Instance.Name);
        Assert.True(page.Verified.Matched, page.Verified.Detail);
        Assert.Equal(1, page.BlobsCommitted);
        Assert.Equal(4, page.LatencyMs.Samples);
        Assert.Matches("in container sbb[0-9a-z]+s000p$", page.Verified.Detail);   // its own container, apart from the block blobs.
        Assert.Contains(page.Transactions, l => l.Kind == "Create Container");
        Assert.True(Assert.Single(summary.Workloads, w => w.Workload == BlobUploadRoom.Instance.Name).Verified.Matched);
        Assert.Empty(await new TargetCleaner([azurite.Target]).OfRunAsync(summary.RunId, default));
    }

    /// <summary>A run's leftovers include a workload's own suffixed container (what a crashed step leaves).</summary>
    [Fact]
    public async Task CleanupOfARunFindsThePageBlobContainer()
    {
        var test = TestStep.New();
        string name = Planner.TargetName(Room, test.StepId, DateTime.UtcNow);
        await azurite.Blobs.CreateBlobContainerAsync(name);

        var leftovers = await new TargetCleaner([azurite.Target]).OfRunAsync(test.RunId, default);

        Assert.Equal(name, Assert.Single(leftovers).Name);
        await new TargetCleaner([azurite.Target]).DeleteAsync(leftovers, default);
    }

    private async Task<(RunSpec Spec, StepPlan Step, SliceResult[] Slices)> RunAsync(PageBlobUploadSpec section, string driver, StorageTarget? target = null)
    {
        var spec = new RunSpec { Scenario = "pageblob", PageBlobUpload = section, Client = new ClientSettings { Driver = driver, PrimeRounds = 1 } };
        var test = TestStep.New();
        var step = new StepPlan(test.RunId, test.StepId, Planner.TargetName(Room, test.StepId, DateTime.UtcNow), DateTime.UtcNow.AddSeconds(0.5));
        await azurite.Blobs.CreateBlobContainerAsync(step.TargetName);
        var slices = await Task.WhenAll(Room.Plan(step, spec).Select(order => Room.RunSliceAsync(order, target ?? azurite.Target, TimeProvider.System, default, null, null)));
        return (spec, step, slices);
    }

    private Task<VerificationResult> VerifyAsync(RunSpec spec, StepPlan step, IReadOnlyList<SliceResult> slices) =>
        Room.VerifyAsync(Room.VerifyOrderOf(spec, step, slices), [azurite.Target], default);

    private Task<VerificationResult> VerifyAsync(PageBlobUploadSpec section, StepPlan step, IReadOnlyList<SliceResult> slices) =>
        VerifyAsync(new RunSpec { Scenario = "pageblob", PageBlobUpload = section }, step, slices);
}

/// <summary>The page blob section's rules: one line naming the field, the value as written and the rule.</summary>
[Trait("Category", "Unit")]
public class PageBlobUploadSpecTests
{
    private static List<ValidationError> Validate(PageBlobUploadSpec section)
    {
        var checks = new SpecChecks(WrittenNumbers.None);
        PageBlobUploadRoom.Instance.Validate(section, checks);
        return checks;
    }

    /// <summary>As a user meets it: the spec file's line, the value as written even past what its type holds.</summary>
    [Fact]
    public void TheParserRefusesASectionOffAPageInOneLinePerField()
    {
        var (_, errors) = RunSpecParser.Parse("""
            { "scenario": "s", "pageBlobUpload": { "pageRangeBytes": 1000, "blobSizeBytes": 99999999999999999999 } }
            """);
        Assert.Equal(
            ["pageBlobUpload.blobSizeBytes: 99999999999999999999 must be between 512 and 8796093022208 (the service's page blob limit, 8 TiB), in whole pages of 512",
             "pageBlobUpload.pageRangeBytes: 1000 must be a multiple of 512 (a page)"],
            errors.Select(e => e.ToString()));
    }

    /// <summary>A sweep reaches its fields by path, and a value off a page is refused for the step it would make.</summary>
    [Fact]
    public void ASweepOverPageRangesJudgesEveryValueByThePageRules()
    {
        var (_, errors) = RunSpecParser.Parse("""
            { "scenario": "s", "pageBlobUpload": {}, "sweep": { "parameter": "pageBlobUpload.pageRangeBytes", "values": [65536, 1000, 4194304] } }
            """);
        Assert.Equal("sweep value 1000 → pageBlobUpload.pageRangeBytes: 1000 must be a multiple of 512 (a page)", Assert.Single(errors).ToString());
    }

    [Fact]
    public void TheDefaultsAreValid() => Assert.Empty(Validate(new PageBlobUploadSpec()));

    [Fact]
    public void ASizeOffAPageNamesTheFieldTheValueAndTheRule()
    {
        Assert.Equal("pageBlobUpload.pageRangeBytes: 1000 must be a multiple of 512 (a page)", Assert.Single(Validate(new() { PageRangeBytes = 1000 })).ToString());
        Assert.Equal("pageBlobUpload.blobSizeBytes: 1000 must be a multiple of 512 (a page)", Assert.Single(Validate(new() { BlobSizeBytes = 1000 })).ToString());
        Assert.Equal("pageBlobUpload.pageRangeBytes: 4194816 must be between 512 and 4194304 (the service's limit per Put Page, 4 MiB), in whole pages of 512",
            Assert.Single(Validate(new() { PageRangeBytes = 4 * 1024 * 1024 + 512 })).ToString());
    }

    /// <summary>Any size: an error exactly when it is not a whole number of pages within the limit, and it names the field and the value.</summary>
    [Fact]
    public void EverySizeIsJudgedByThePageRules()
    {
        var sizes = Gen.OneOf(Gen.Long[-1_000, 2 * ServiceLimits.MaxPageBlobBytes], Gen.Long[0, 2 * ServiceLimits.MaxPageBlobBytes / 512].Select(p => p * 512));
        var ranges = Gen.OneOf(Gen.Int[-1_000, 2 * ServiceLimits.MaxPutPageBytes], Gen.Int[0, 2 * ServiceLimits.MaxPutPageBytes / 512].Select(p => p * 512));
        Gen.Select(sizes, ranges).Sample((blobSize, range) =>
        {
            var errors = Validate(new() { BlobSizeBytes = blobSize, PageRangeBytes = range, BlobCount = 1, WarmupOperations = 0 });
            Judged(errors, "pageBlobUpload.blobSizeBytes", blobSize, ServiceLimits.MaxPageBlobBytes);
            Judged(errors, "pageBlobUpload.pageRangeBytes", range, ServiceLimits.MaxPutPageBytes);
        }, iter: 2_000);
    }

    private static void Judged(List<ValidationError> errors, string field, long value, long max)
    {
        bool valid = value >= 512 && value <= max && value % 512 == 0;
        var error = errors.SingleOrDefault(e => e.Field == field);
        Assert.Equal(valid, error is null);
        if (error is not null)
        {
            Assert.StartsWith($"{field}: {value.ToString(CultureInfo.InvariantCulture)} must be ", error.ToString());
            Assert.Contains("512", error.Rule);
        }
    }

    [Fact]
    public void WarmupThatLeavesNoPutPageIsRefused() =>
        Assert.Equal("pageBlobUpload.warmupOperations: 8 must be less than the 8 Put Pages the run sends (blobCount 4 of 8388608 bytes in ranges of 4194304), or nothing is measured",
            Assert.Single(Validate(new() { WarmupOperations = 8 })).ToString());
}
