using Azure;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.TableInsert;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>Storage's answers to lean requests are read as the SDK reads them: accepted, or the same failure and outcome.</summary>
[Trait("Category", "Azurite")]
[Collection(AzuriteCollection.Name)]
public class LeanDriverAzuriteTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task AFailedOperationInsideABatchIsTheSdksFailureAndOutcome()
    {
        string tableName = "leanfail" + Guid.NewGuid().ToString("N")[..8];
        await azurite.Tables.CreateTableAsync(tableName);
        using var clients = azurite.Target.CreateClients(new ClientSettings());
        var table = clients.Tables.GetTableClient(tableName);
        var payload = new EntityPayload(512);
        using var lean = new LeanTableInserts(clients.Lean, clients.TableWire, tableName, payload, 20);
        using var sdk = new SdkTableInserts(table, payload, 20);

        lean.Prepare("p00001", "a1b2c3d4", 0, 1, 20);
        await lean.SendAsync();                                   // accepted: 20 rows stored
        Assert.Equal(20, table.Query<Azure.Data.Tables.TableEntity>(select: ["RowKey"]).Count());

        // The same rows again: the changeset fails inside a 202 answer (409 EntityAlreadyExists) on both drivers.
        var leanFailure = await Assert.ThrowsAnyAsync<RequestFailedException>(lean.SendAsync);
        sdk.Prepare("p00001", "a1b2c3d4", 0, 1, 20);
        var sdkFailure = await Assert.ThrowsAnyAsync<RequestFailedException>(sdk.SendAsync);
        Assert.Equal((sdkFailure.Status, sdkFailure.ErrorCode), (leanFailure.Status, leanFailure.ErrorCode));
        Assert.Equal(Outcome.ClientError, OutcomeClassifier.Classify(leanFailure, CancellationToken.None));
        Assert.Equal(20, table.Query<Azure.Data.Tables.TableEntity>(select: ["RowKey"]).Count());
    }

    [Fact]
    public async Task ASingleInsertAndABadKeyAreAnsweredAsForTheSdk()
    {
        string tableName = "leansingle" + Guid.NewGuid().ToString("N")[..8];
        await azurite.Tables.CreateTableAsync(tableName);
        using var clients = azurite.Target.CreateClients(new ClientSettings());
        using var lean = new LeanTableInserts(clients.Lean, clients.TableWire, tableName, new EntityPayload(100), 1);
        lean.Prepare("p00001", "a1b2c3d4", 0, 7, 1);
        await lean.SendAsync();
        var stored = await clients.Tables.GetTableClient(tableName).GetEntityAsync<Azure.Data.Tables.TableEntity>("p00001", TableInsertSlice.RowKey("a1b2c3d4", 0, 7, 0));
        Assert.Equal(100, stored.Value.GetBinary("D00").Length);

        // A wrong account key: the signature must be refused (403), counted as a client error.
        string wrongKey = azurite.ConnectionString.Replace("AccountKey=", "AccountKey=AAAA", StringComparison.Ordinal);
        using var wrong = StorageTarget.FromConnectionString(wrongKey).CreateClients(new ClientSettings());
        using var refused = new LeanTableInserts(wrong.Lean, wrong.TableWire, tableName, new EntityPayload(100), 1);
        refused.Prepare("p00001", "a1b2c3d4", 0, 8, 1);
        var failure = await Assert.ThrowsAnyAsync<RequestFailedException>(refused.SendAsync);
        Assert.Equal(403, failure.Status);
        Assert.Equal(Outcome.ClientError, OutcomeClassifier.Classify(failure, CancellationToken.None));
    }

    /// <summary>Both drivers stay selectable and land exactly what they report: EGTs, single inserts, blobs with a partial last block.</summary>
    [Theory]
    [InlineData(ClientSettings.LeanDriver)]
    [InlineData(ClientSettings.SdkDriver)]
    public async Task EitherDriverLandsWhatItReports(string driver)
    {
        var client = new ClientSettings { Driver = driver, PrimeRounds = 2 };
        foreach (int batchSize in new[] { 50, 1 })
        {
            var step = TestStep.New();
            await azurite.Tables.CreateTableAsync(step.TableName);
            var spec = new TableInsertSpec { EntityCount = 230, EntitySizeBytes = 300, BatchSize = batchSize, PartitionCount = 2, Concurrency = 3, Slices = 2 };
            var results = await Task.WhenAll(step.Table(spec, client).Select(p => TableInsertSlice.RunAsync(p, azurite.Target, TimeProvider.System, default)));
            Assert.Equal((230L, 0L), (results.Sum(r => r.Units), results.Sum(r => r.Counts.Failed)));
            var verified = await TableInsertGroundTruth.VerifyTableAsync(azurite.Target, step.TableName, [.. results.Select(r => r.AttemptId)], 230, default);
            Assert.True(verified.Matched, verified.ToString());
        }

        var blobStep = TestStep.New();
        await azurite.Blobs.CreateBlobContainerAsync(blobStep.ContainerName);
        var blobSpec = new BlobUploadSpec { BlobCount = 2, BlobSizeBytes = 1_300_000, BlockSizeBytes = 512 * 1024, ParallelBlocks = 2, VerifyContent = true };
        var blobs = await Task.WhenAll(blobStep.Blob(blobSpec, client).Select(p => BlobUploadSlice.RunAsync(p, azurite.Target, TimeProvider.System, default)));
        Assert.Equal(2, blobs.Sum(r => r.Objects));
        var stored = await BlobUploadGroundTruth.VerifyBlobsAsync([azurite.Target], blobStep.ContainerName, [.. blobs.Select(r => r.AttemptId)], 2, blobSpec.BlobSizeBytes, blobs.ToDictionary(r => r.AttemptId, r => r.ContentMd5!), default);
        Assert.True(stored.Matched, stored.ToString());
    }
}
