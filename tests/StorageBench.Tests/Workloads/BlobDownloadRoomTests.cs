using Azure.Storage.Blobs.Specialized;
using StorageBench.Engine.Workloads.BlobDownload;
using System.Text.Json;
using CsCheck;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>The blobDownload room against a real Azurite: seeded, downloaded on both drivers, verified, summarized.</summary>
[Trait("Category", "Azurite")]
[Collection(AzuriteCollection.Name)]
public class BlobDownloadRoomTests(AzuriteFixture azurite)
{
    private static readonly BlobDownloadRoom Room = new();

    [Theory]
    [InlineData(ClientSettings.LeanDriver, 0, false)]
    [InlineData(ClientSettings.SdkDriver, 0, true)]
    [InlineData(ClientSettings.LeanDriver, 100_000, true)]    // three ranges, the last one short
    [InlineData(ClientSettings.SdkDriver, 100_000, false)]
    public async Task DownloadsWholeBlobsOrRangesOfWhatWasSeededAndVerifies(string driver, long rangeSizeBytes, bool verifyContent)
    {
        var spec = new BlobDownloadSpec { BlobCount = 3, BlobSizeBytes = 250_000, RangeSizeBytes = rangeSizeBytes, ParallelRanges = 2, DownloadCount = 7, Slices = 2, VerifyContent = verifyContent };
        var (run, step, orders) = await SeededAsync(spec, driver);

        var slices = await Task.WhenAll(orders.Select(o => Room.RunSliceAsync(o, azurite.Target, TimeProvider.System, default, null, null)));
        var verified = await Room.VerifyAsync(Room.VerifyOrderOf(run, step, slices), [azurite.Target], default);
        var summary = Room.Summarize(run, slices, verified);

        long requestsPerBlob = rangeSizeBytes > 0 ? 3 : 1;
        Assert.True(verified.Matched, verified.Detail);
        Assert.Equal(3, verified.Actual);
        Assert.Equal(7, slices.Sum(s => s.Objects));
        Assert.Equal(7 * requestsPerBlob, summary.Succeeded);
        Assert.Equal(0, summary.Failed);
        Assert.Equal(7 * 250_000L, summary.Bytes);
        Assert.Equal(0, summary.UnstoredShare);
        Assert.Equal(summary.Succeeded, summary.TimeToFirstByteMs!.Samples);
        // The first byte comes before the last: the median time to first byte is not above the median latency.
        Assert.True(summary.TimeToFirstByteMs.P50 <= summary.LatencyMs.P50, $"{summary.TimeToFirstByteMs.P50} > {summary.LatencyMs.P50}");
        Assert.Contains(summary.Transactions, t => t.Kind == "Get Blob" && t.Requests == 7 * requestsPerBlob);
        Assert.Contains(summary.Transactions, t => t.Bytes == 7 * 250_000L);
    }

    /// <summary>
    /// Storage returns other bytes than were seeded (a seeded blob overwritten between seeding and the run): the downloads say
    /// so, and verification fails — by length, and with verifyContent by MD5 when the length is the same.
    /// </summary>
    [Theory]
    [InlineData(ClientSettings.LeanDriver, 0, 249_999, false)]
    [InlineData(ClientSettings.SdkDriver, 100_000, 249_999, false)]
    [InlineData(ClientSettings.LeanDriver, 100_000, 250_000, true)]
    [InlineData(ClientSettings.SdkDriver, 0, 250_000, true)]
    public async Task VerificationFailsWhenStorageReturnsOtherBytesThanWereSeeded(string driver, long rangeSizeBytes, int overwrittenLength, bool verifyContent)
    {
        var spec = new BlobDownloadSpec { BlobCount = 2, BlobSizeBytes = 250_000, RangeSizeBytes = rangeSizeBytes, ParallelRanges = 2, DownloadCount = 4, VerifyContent = verifyContent };
        var (run, step, orders) = await SeededAsync(spec, driver);
        byte[] other = new byte[overwrittenLength];
        Random.Shared.NextBytes(other);
        await azurite.Blobs.GetBlobContainerClient(step.TargetName).GetBlobClient(BlobDownloadRoom.SeedBlobName(1)).UploadAsync(new BinaryData(other), overwrite: true);

        var slices = await Task.WhenAll(orders.Select(o => Room.RunSliceAsync(o, azurite.Target, TimeProvider.System, default, null, null)));
        var verified = await Room.VerifyAsync(Room.VerifyOrderOf(run, step, slices), [azurite.Target], default);
        var summary = Room.Summarize(run, slices, verified);

        Assert.False(verified.Matched, verified.Detail);
        Assert.Equal(2, slices.Sum(s => s.WrongDownloads));        // blob 1 is every second download
        Assert.Equal(2, slices.Sum(s => s.Objects));
        Assert.Equal(2 * 250_000L, summary.Bytes);                  // goodput counts the right blobs only
        Assert.Equal(0.5, summary.UnstoredShare);
        Assert.Contains("2 of 4 downloads returned other bytes", verified.Detail);
    }

    [Fact]
    public async Task SeedingTwiceOverwritesAndVerificationCountsEachSeededBlobOnce()
    {
        var spec = new BlobDownloadSpec { BlobCount = 3, BlobSizeBytes = 1_000, DownloadCount = 3, Slices = 3 };
        var (run, step, orders) = await SeededAsync(spec, ClientSettings.LeanDriver);
        var again = await Room.SeedAsync(orders[1], azurite.Target, default);
        Assert.Equal(new SeedResult(1, 1_000, 0), again);

        var slices = await Task.WhenAll(orders.Select(o => Room.RunSliceAsync(o, azurite.Target, TimeProvider.System, default, null, null)));
        var verified = await Room.VerifyAsync(Room.VerifyOrderOf(run, step, slices), [azurite.Target], default);
        Assert.True(verified.Matched, verified.Detail);

        // A blob the seeding did not write fails it too.
        await azurite.Blobs.GetBlobContainerClient(step.TargetName).GetBlobClient("seed/stranger").UploadAsync(new BinaryData(new byte[1]));
        Assert.False((await Room.VerifyAsync(Room.VerifyOrderOf(run, step, slices), [azurite.Target], default)).Matched);
    }

    [Fact]
    public async Task SeedingWritesABlobTheSdkWouldStageInBlocksWithOnePutBlob()
    {
        // 256 MiB: left to its defaults, the SDK stages a stream this large as 8-MiB blocks and a Put Block List.
        var spec = new BlobDownloadSpec { BlobCount = 1, BlobSizeBytes = 256L << 20, DownloadCount = 1, Slices = 1 };
        var (_, step, _) = await SeededAsync(spec, ClientSettings.LeanDriver);   // one request on the wire per blob
        var container = azurite.Blobs.GetBlobContainerClient(step.TargetName);
        try
        {
            var blocks = await container.GetBlockBlobClient(BlobDownloadRoom.SeedBlobName(0)).GetBlockListAsync(Azure.Storage.Blobs.Models.BlockListTypes.Committed);
            Assert.Empty(blocks.Value.CommittedBlocks);
        }
        finally
        {
            await container.DeleteAsync();
        }
    }

    private async Task<(RunSpec Run, StepPlan Step, IReadOnlyList<SliceOrder> Orders)> SeededAsync(BlobDownloadSpec spec, string driver)
    {
        var names = TestStep.New();
        var run = new RunSpec { Scenario = "download", BlobDownload = spec, Client = new ClientSettings { Driver = driver, PrimeRounds = 1 } };
        var step = new StepPlan(names.RunId, names.StepId, names.ContainerName + Room.TargetSuffix, DateTime.UtcNow);
        await azurite.Blobs.CreateBlobContainerAsync(step.TargetName);
        var orders = Room.Plan(step, run);
        var seeded = await Task.WhenAll(orders.Select(o => Room.SeedAsync(o, azurite.Target, default)));
        Assert.Equal(spec.BlobCount * spec.BlobSizeBytes, seeded.Sum(s => s.Units));
        Assert.Equal(spec.BlobCount, seeded.Sum(s => s.Requests));   // one Put Blob per blob
        Assert.Equal(0, seeded.Sum(s => s.Failed));
        // Orders cross the orchestration boundary as JSON.
        return (run, step, [.. orders.Select(o => JsonSerializer.Deserialize<SliceOrder>(JsonSerializer.Serialize(o, Workload.Json), Workload.Json)!)]);
    }
}

/// <summary>blobDownload's section rules: a valid section passes; each broken rule names its field and the value as written.</summary>
[Trait("Category", "Unit")]
public class BlobDownloadSpecTests
{
    private static readonly BlobDownloadRoom Room = new();

    private static List<ValidationError> Errors(BlobDownloadSpec spec)
    {
        var checks = new SpecChecks(WrittenNumbers.None);
        Room.Validate(spec, checks);
        return checks;
    }

    private static readonly Gen<BlobDownloadSpec> Valid =
        from blobCount in Gen.Int[1, 1_000]
        from slices in Gen.Int[1, Math.Min(blobCount, ServiceLimits.MaxSlices)]
        from blobSize in Gen.Long[1, 64L << 20]
        from whole in Gen.Bool
        from range in Gen.Long[Math.Max(1, (blobSize + 49_999) / 50_000), blobSize]
        from parallel in Gen.Int[1, 1_024]
        from downloads in Gen.Long[slices, 1_000_000]
        from verify in Gen.Bool
        select new BlobDownloadSpec
        {
            BlobCount = blobCount, Slices = slices, BlobSizeBytes = blobSize, RangeSizeBytes = whole ? 0 : range, ParallelRanges = parallel,
            DownloadCount = downloads, VerifyContent = verify,
        };

    [Fact]
    public void AValidSectionHasNoError() => Valid.Sample(spec => Assert.Empty(Errors(spec)));

    /// <summary>Across accounts: every seeded blob is read on the account it was seeded on, and every slice has at least its own seed to read.</summary>
    [Fact]
    public void EverySliceReadsOnlyBlobsSeededOnItsAccountAndHasOne() =>
        Gen.Int[1, 64].SelectMany(slices => Gen.Select(Gen.Int[slices, 500], Gen.Int[1, slices], (blobs, accounts) => (slices, blobs, accounts))).Sample(c =>
        {
            var byAccount = Enumerable.Range(0, c.accounts).Select(t => BlobDownloadRoom.BlobsOn(t, c.blobs, c.slices, c.accounts)).ToList();
            Assert.Equal(Enumerable.Range(0, c.blobs), byAccount.SelectMany(b => b).Order());
            for (int slice = 0; slice < c.slices; slice++)
            {
                var readable = byAccount[slice % c.accounts];
                Assert.Contains(slice, readable);    // its own first seed
                Assert.All(readable, b => Assert.Equal(slice % c.accounts, b % c.slices % c.accounts));
            }
        });

    /// <summary>One field broken at a time: the one error names that field and shows its value.</summary>
    [Fact]
    public void EachBrokenRuleNamesItsFieldAndValue() =>
        Gen.Select(Valid, Gen.Int[0, 6], Gen.Long[1, 1_000_000]).Sample((spec, field, by) =>
        {
            var (broken, name, value) = field switch
            {
                0 => (spec with { BlobCount = 0 }, "blobCount", 0L),
                1 => (spec with { BlobSizeBytes = ServiceLimits.MaxPutBlobBytes + by, RangeSizeBytes = 0 }, "blobSizeBytes", ServiceLimits.MaxPutBlobBytes + by),
                2 => (spec with { RangeSizeBytes = spec.BlobSizeBytes + by }, "rangeSizeBytes", spec.BlobSizeBytes + by),
                3 => (spec with { ParallelRanges = -(int)by }, "parallelRanges", -by),
                4 => (spec with { DownloadCount = 0 }, "downloadCount", 0L),
                5 => (spec with { Slices = spec.BlobCount + (int)by, DownloadCount = spec.DownloadCount + spec.BlobCount + by }, "slices", spec.BlobCount + by),
                _ => (spec with { RangeSizeBytes = 1, BlobSizeBytes = 50_000 + by }, "rangeSizeBytes", 1L),
            };
            var e = Assert.Single(Errors(broken));
            Assert.Equal("blobDownload." + name, e.Field);
            Assert.Equal(SpecChecks.Num(value), e.Value);
        });
}
