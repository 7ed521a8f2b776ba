using Azure.Data.Tables;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Verification;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>The workloads against a real Azurite: what they report must be what landed.</summary>
[Collection(AzuriteCollection.Name)]
public class WorkloadIntegrationTests(AzuriteFixture azurite)
{
    private static string NewRunId() => Planner.NewRunId(DateTime.UtcNow);

    [Fact]
    public async Task TableInsertLandsEveryEntityAcrossSlicesSharingAPartition()
    {
        string runId = NewRunId();
        var spec = new TableInsertSpec { EntityCount = 1_050, EntitySizeBytes = 200, BatchSize = 100, PartitionCount = 1, Concurrency = 3, Slices = 2 };
        await azurite.Tables.CreateTableAsync(Planner.TableName(runId));

        var plans = Planner.PlanTable(runId, spec, new ClientSettings(), DateTime.UtcNow);
        var results = await Task.WhenAll(plans.Select(p => TableInsertWorkload.RunAsync(p, azurite.Target, TimeProvider.System, default)));

        Assert.Equal(1_050, results.Sum(r => r.Units));
        Assert.Equal(12, results.Sum(r => r.Counts.Succeeded));   // 525 per slice = 5 full batches + 1 of 25
        Assert.Equal(0, results.Sum(r => r.Counts.Failed));
        var verified = await GroundTruth.VerifyTableAsync(azurite.Target, Planner.TableName(runId), 1_050, default);
        Assert.True(verified.Matched, verified.ToString());
        Assert.Equal(1_050, verified.Actual);
    }

    [Fact]
    public async Task LargeEntitiesAreSplitIntoBinaryPropertiesOfAtMost64KiB()
    {
        string runId = NewRunId();
        var spec = new TableInsertSpec { EntityCount = 3, EntitySizeBytes = 150_000, BatchSize = 1, Concurrency = 2 };
        await azurite.Tables.CreateTableAsync(Planner.TableName(runId));

        var plan = Planner.PlanTable(runId, spec, new ClientSettings(), DateTime.UtcNow)[0];
        var result = await TableInsertWorkload.RunAsync(plan, azurite.Target, TimeProvider.System, default);

        Assert.Equal(3, result.Counts.Succeeded);   // batchSize 1: three single inserts, no transaction
        var entity = (await azurite.Tables.GetTableClient(Planner.TableName(runId))
            .GetEntityAsync<TableEntity>(Planner.PartitionKey(0), TableInsertWorkload.RowKey(0, 0, 0))).Value;
        int[] sizes = [.. entity.Keys.Where(k => k.StartsWith('D')).Order().Select(k => entity.GetBinary(k).Length)];
        Assert.Equal([65_536, 65_536, 18_928], sizes);
    }

    [Fact]
    public async Task BlobUploadCommitsBlobsOfTheFullLengthIncludingAPartialLastBlock()
    {
        string runId = NewRunId();
        var spec = new BlobUploadSpec { BlobCount = 3, BlobSizeBytes = 2_621_440, BlockSizeBytes = 1_048_576, ParallelBlocks = 2, Slices = 2 };
        await azurite.Blobs.CreateBlobContainerAsync(Planner.ContainerName(runId));

        var plans = Planner.PlanBlob(runId, spec, new ClientSettings(), DateTime.UtcNow);
        var results = await Task.WhenAll(plans.Select(p => BlobUploadWorkload.RunAsync(p, azurite.Target, TimeProvider.System, default)));

        Assert.Equal(3, results.Sum(r => r.Objects));
        Assert.Equal(3 * 2_621_440L, results.Sum(r => r.Units));
        Assert.Equal(3 * 3 + 3, results.Sum(r => r.Counts.Succeeded));   // 3 blocks + 1 commit per blob
        var verified = await GroundTruth.VerifyBlobsAsync(azurite.Target, Planner.ContainerName(runId), 3, spec.BlobSizeBytes, default);
        Assert.True(verified.Matched, verified.ToString());
    }

    [Fact]
    public async Task ARunWhoseCountDisagreesWithStorageIsUnverified()
    {
        string runId = NewRunId();
        string tableName = Planner.TableName(runId);
        await azurite.Tables.CreateTableAsync(tableName);
        var plan = Planner.PlanTable(runId, new TableInsertSpec { EntityCount = 50, BatchSize = 10 }, new ClientSettings(), DateTime.UtcNow)[0];
        var result = await TableInsertWorkload.RunAsync(plan, azurite.Target, TimeProvider.System, default);
        Assert.True((await GroundTruth.VerifyTableAsync(azurite.Target, tableName, result.Units, default)).Matched);

        // Something else wrote into the run's partition: storage now holds more than the run reported.
        await azurite.Tables.GetTableClient(tableName).AddEntityAsync(new TableEntity(Planner.PartitionKey(0), "intruder"));
        var verified = await GroundTruth.VerifyTableAsync(azurite.Target, tableName, result.Units, default);
        Assert.False(verified.Matched);
        Assert.Equal(50, verified.Expected);
        Assert.Equal(51, verified.Actual);

        // And a blob container missing a blob the run claims.
        var blobs = await GroundTruth.VerifyBlobsAsync(azurite.Target, Planner.ContainerName(runId), 1, 100, default);
        Assert.False(blobs.Matched);
    }
}
