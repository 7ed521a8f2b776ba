using Azure.Data.Tables;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.TableInsert;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>The workloads against a real Azurite: what they report must be what landed.</summary>
[Trait("Category", "Azurite")]
[Collection(AzuriteCollection.Name)]
public class WorkloadIntegrationTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task TableInsertLandsEveryEntityAcrossSlicesSharingAPartition()
    {
        var step = TestStep.New();
        var spec = new TableInsertSpec { EntityCount = 1_050, EntitySizeBytes = 200, BatchSize = 100, PartitionCount = 1, Concurrency = 3, Slices = 2 };
        await azurite.Tables.CreateTableAsync(step.TableName);

        var plans = step.Table(spec, new ClientSettings());
        var results = await Task.WhenAll(plans.Select(p => TableInsertSlice.RunAsync(p, azurite.Target, TimeProvider.System, default)));

        Assert.Equal(1_050, results.Sum(r => r.Units));
        Assert.Equal(12, results.Sum(r => r.Counts.Succeeded));   // 525 per slice = 5 full batches + 1 of 25
        Assert.Equal(0, results.Sum(r => r.Counts.Failed));
        var verified = await TableInsertGroundTruth.VerifyTableAsync(azurite.Target, step.TableName, [.. results.Select(r => r.AttemptId)], 1_050, default);
        Assert.True(verified.Matched, verified.ToString());
        Assert.Equal(1_050, verified.Actual);
    }

    [Fact]
    public async Task LargeEntitiesAreSplitIntoBinaryPropertiesOfAtMost64KiB()
    {
        var step = TestStep.New();
        var spec = new TableInsertSpec { EntityCount = 3, EntitySizeBytes = 150_000, BatchSize = 1, Concurrency = 2 };
        await azurite.Tables.CreateTableAsync(step.TableName);

        var plan = step.Table(spec, new ClientSettings())[0];
        var result = await TableInsertSlice.RunAsync(plan, azurite.Target, TimeProvider.System, default);

        Assert.Equal(3, result.Counts.Succeeded);   // batchSize 1: three single inserts, no transaction
        var entity = (await azurite.Tables.GetTableClient(step.TableName)
            .GetEntityAsync<TableEntity>(Planner.PartitionKey(0), TableInsertSlice.RowKey(result.AttemptId, 0, 0, 0))).Value;
        int[] sizes = [.. entity.Keys.Where(k => k.StartsWith('D')).Order().Select(k => entity.GetBinary(k).Length)];
        Assert.Equal([65_536, 65_536, 18_928], sizes);
    }

    [Fact]
    public async Task BlobUploadCommitsBlobsOfTheFullLengthIncludingAPartialLastBlock()
    {
        var step = TestStep.New();
        var spec = new BlobUploadSpec { BlobCount = 3, BlobSizeBytes = 2_621_440, BlockSizeBytes = 1_048_576, ParallelBlocks = 2, Slices = 2 };
        await azurite.Blobs.CreateBlobContainerAsync(step.ContainerName);

        var plans = step.Blob(spec, new ClientSettings());
        var results = await Task.WhenAll(plans.Select(p => BlobUploadSlice.RunAsync(p, azurite.Target, TimeProvider.System, default)));

        Assert.Equal(3, results.Sum(r => r.Objects));
        Assert.Equal(3 * 2_621_440L, results.Sum(r => r.Units));
        Assert.Equal(3 * 3 + 3, results.Sum(r => r.Counts.Succeeded));   // 3 blocks + 1 commit per blob
        var verified = await BlobUploadGroundTruth.VerifyBlobsAsync([azurite.Target], step.ContainerName, [.. results.Select(r => r.AttemptId)], 3, spec.BlobSizeBytes, null, default);
        Assert.True(verified.Matched, verified.ToString());
    }

    [Fact]
    public async Task WarmupOperationsAreStoredButLeftOutOfTheStatistics()
    {
        var step = TestStep.New();
        await azurite.Tables.CreateTableAsync(step.TableName);
        var spec = new TableInsertSpec { EntityCount = 100, BatchSize = 10, Concurrency = 1, WarmupOperations = 3 };
        var plan = step.Table(spec, new ClientSettings())[0];

        var result = await TableInsertSlice.RunAsync(plan, azurite.Target, TimeProvider.System, default);

        Assert.Equal(3, result.WarmupOperations);
        Assert.Equal(30, result.WarmupUnits);
        Assert.Equal(7, result.Counts.Operations);
        Assert.Equal(70, result.Units);
        Assert.Equal(7, LatencyHistograms.Decode(result.LatencyHistogram).TotalCount);
        Assert.True((await TableInsertGroundTruth.VerifyTableAsync(azurite.Target, step.TableName, [result.AttemptId], result.Units + result.WarmupUnits, default)).Matched);
    }

    [Fact]
    public async Task AFixedDurationRunStopsOnTimeAndEveryEntityItReportsLanded()
    {
        var step = TestStep.New();
        await azurite.Tables.CreateTableAsync(step.TableName);
        var spec = new TableInsertSpec { BatchSize = 10, Concurrency = 2, DurationSeconds = 1.5, EntityCount = 1 };
        var plan = step.Table(spec, new ClientSettings { ConnectionPooling = false, Expect100Continue = true })[0];

        var result = await TableInsertSlice.RunAsync(plan, azurite.Target, TimeProvider.System, default);

        var seconds = (result.EndedUtc - result.StartedUtc).TotalSeconds;
        Assert.InRange(seconds, 1.3, 4.0);
        Assert.True(result.Units > 10, $"only {result.Units} entities in {seconds} s");
        Assert.Equal(0, result.Counts.Failed);
        Assert.True((await TableInsertGroundTruth.VerifyTableAsync(azurite.Target, step.TableName, [result.AttemptId], result.Units, default)).Matched);
    }

    [Fact]
    public async Task OpenLoopRunsAtTheTargetRate()
    {
        var step = TestStep.New();
        await azurite.Tables.CreateTableAsync(step.TableName);
        var spec = new TableInsertSpec { BatchSize = 1, EntitySizeBytes = 100, Concurrency = 8, DurationSeconds = 2, TargetOperationsPerSecond = 40 };
        var plan = step.Table(spec, new ClientSettings())[0];

        var result = await TableInsertSlice.RunAsync(plan, azurite.Target, TimeProvider.System, default);

        // 40/s for 2 s: operations due at 0, 25 ms, ..., 1975 ms.
        Assert.Equal(80, result.Counts.Operations);
        Assert.Equal(80, result.Units);
    }

    [Fact]
    public async Task ContentVerificationCatchesABlobWhoseBytesChanged()
    {
        var step = TestStep.New();
        string containerName = step.ContainerName;
        await azurite.Blobs.CreateBlobContainerAsync(containerName);
        var spec = new BlobUploadSpec { BlobCount = 2, BlobSizeBytes = 300_000, BlockSizeBytes = 100_000, ParallelBlocks = 2, VerifyContent = true };
        var plan = step.Blob(spec, new ClientSettings())[0];
        var result = await BlobUploadSlice.RunAsync(plan, azurite.Target, TimeProvider.System, default);
        Assert.NotNull(result.ContentMd5);
        Assert.True((await BlobUploadGroundTruth.VerifyBlobsAsync([azurite.Target], containerName, [result.AttemptId], 2, spec.BlobSizeBytes, Md5(result), default)).Matched);

        // Same length, different bytes: only the content check can tell.
        await azurite.Blobs.GetBlobContainerClient(containerName).GetBlobClient(BlobNames.Of(result.AttemptId, 0, 1))
            .UploadAsync(BinaryData.FromBytes(new byte[300_000]), overwrite: true);
        var verified = await BlobUploadGroundTruth.VerifyBlobsAsync([azurite.Target], containerName, [result.AttemptId], 2, spec.BlobSizeBytes, Md5(result), default);
        Assert.False(verified.Matched);
        Assert.Contains("1 whose MD5 differs", verified.Detail);
        Assert.True((await BlobUploadGroundTruth.VerifyBlobsAsync([azurite.Target], containerName, [result.AttemptId], 2, spec.BlobSizeBytes, null, default)).Matched);
    }

    [Fact]
    public async Task ARunWhoseCountDisagreesWithStorageIsUnverified()
    {
        var step = TestStep.New();
        string tableName = step.TableName;
        await azurite.Tables.CreateTableAsync(tableName);
        var plan = step.Table(new TableInsertSpec { EntityCount = 50, BatchSize = 10 }, new ClientSettings())[0];
        var result = await TableInsertSlice.RunAsync(plan, azurite.Target, TimeProvider.System, default);
        Assert.True((await TableInsertGroundTruth.VerifyTableAsync(azurite.Target, tableName, [result.AttemptId], result.Units, default)).Matched);

        // One more row under the accepted attempt: storage now holds more than the run reported.
        var table = azurite.Tables.GetTableClient(tableName);
        await table.AddEntityAsync(new TableEntity(Planner.PartitionKey(0), TableInsertSlice.RowKey(result.AttemptId, 9, 0, 0)));
        var verified = await TableInsertGroundTruth.VerifyTableAsync(azurite.Target, tableName, [result.AttemptId], result.Units, default);
        Assert.False(verified.Matched);
        Assert.Equal(50, verified.Expected);
        Assert.Equal(51, verified.Actual);

        // Something that is not this tool's at all: not counted, but it fails verification.
        await table.DeleteEntityAsync(Planner.PartitionKey(0), TableInsertSlice.RowKey(result.AttemptId, 9, 0, 0));
        await table.AddEntityAsync(new TableEntity(Planner.PartitionKey(0), "intruder"));
        verified = await TableInsertGroundTruth.VerifyTableAsync(azurite.Target, tableName, [result.AttemptId], result.Units, default);
        Assert.False(verified.Matched);
        Assert.Equal(50, verified.Actual);
        Assert.Contains("1 entities this tool did not write", verified.Detail);

        // And a blob container missing a blob the run claims.
        var blobs = await BlobUploadGroundTruth.VerifyBlobsAsync([azurite.Target], step.ContainerName, [result.AttemptId], 1, 100, null, default);
        Assert.False(blobs.Matched);
    }

    private static Dictionary<string, string> Md5(StorageBench.Engine.Measurement.SliceResult result) => new() { [result.AttemptId] = result.ContentMd5! };
}
