using StorageBench.Cli;
using StorageBench.Engine.Preflight;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.TableInsert;

namespace StorageBench.Tests;

/// <summary>
/// An Azurite started as a user starts it — without --skipApiVersionCheck — takes every request the tool sends to an
/// emulator: table and blob workloads on both drivers, the preflight, and verification. (The blob SDK's default
/// 2026-10-06 and the lean driver's were refused: "The API version 2026-10-06 is not supported by Azurite".)
/// </summary>
[Trait("Category", "Azurite")]
public class StrictAzuriteTests
{
    [Fact]
    public async Task BothDriversThePreflightAndVerificationWorkOnAnAzuriteThatChecksApiVersions()
    {
        await using var azurite = await AzuriteServer.StartAsync(checkApiVersion: true);
        var target = StorageTarget.FromConnectionString(azurite.ConnectionString);
        using (var clients = target.CreateClients(new ClientSettings()))
        {
            var spec = new RunSpec { Scenario = "strict", TableInsert = new TableInsertSpec(), BlobUpload = new BlobUploadSpec() };
            Assert.Null(await new StoragePreflight([target], target, Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance).CheckAsync(spec, default));
            foreach (string driver in new[] { ClientSettings.LeanDriver, ClientSettings.SdkDriver })
            {
                var client = new ClientSettings { Driver = driver, PrimeRounds = 1 };
                var step = TestStep.New();
                await clients.Tables.CreateTableAsync(step.TableName);
                var table = new TableInsertSpec { EntityCount = 40, BatchSize = 10, EntitySizeBytes = 64 };
                var rows = await Task.WhenAll(step.Table(table, client).Select(p => TableInsertSlice.RunAsync(p, target, TimeProvider.System, default)));
                Assert.Equal((40L, 0L), (rows.Sum(r => r.Units), rows.Sum(r => r.Counts.Failed)));
                var tableTruth = await TableInsertGroundTruth.VerifyTableAsync(target, step.TableName, [.. rows.Select(r => r.AttemptId)], 40, default);
                Assert.True(tableTruth.Matched, $"{driver}: {tableTruth}");

                await clients.Blobs.CreateBlobContainerAsync(step.ContainerName);
                var blob = new BlobUploadSpec { BlobCount = 2, BlobSizeBytes = 4096, BlockSizeBytes = 1024, VerifyContent = true };
                var blobs = await Task.WhenAll(step.Blob(blob, client).Select(p => BlobUploadSlice.RunAsync(p, target, TimeProvider.System, default)));
                Assert.True(blobs.Sum(r => r.Counts.Failed) == 0, $"{driver}: {blobs.Sum(r => r.Counts.Failed)} blob requests failed");
                var blobTruth = await BlobUploadGroundTruth.VerifyBlobsAsync([target], step.ContainerName, [.. blobs.Select(r => r.AttemptId)], 2, blob.BlobSizeBytes,
                    blobs.ToDictionary(r => r.AttemptId, r => r.ContentMd5!), default);
                Assert.True(blobTruth.Matched, $"{driver}: {blobTruth}");
            }
        }
    }
}
