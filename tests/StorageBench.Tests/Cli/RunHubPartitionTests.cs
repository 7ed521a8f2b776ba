using Azure.Storage.Queues;
using StorageBench.Cli;
using StorageBench.TaskHub;

namespace StorageBench.Tests;

/// <summary>
/// A run's own task hub, worked by one process, has one control queue: each one more is a create, a delete and a poll in the
/// hub store on every short run (BENCHMARKS.md section 10). A hub several workers share has the provider's most, 16, so each of
/// up to 16 workers owns a partition through which a handed-back slice reaches it. A run's own hub keeps its lease as a blob
/// (the provider's table partition manager, which shared hubs keep, sleeps a fixed second at every stop).
/// </summary>
[Collection(AzuriteCollection.Name)]
[Trait("Category", "Azurite")]
public class RunHubPartitionTests(AzuriteFixture azurite)
{
    [Theory]
    [InlineData(true, 1)]
    [InlineData(false, TaskHubSettings.SharedHubPartitions)]
    public async Task ARunsOwnHubHasOneControlQueueLeasedByABlobAndASharedHubSixteenLeasedByTableRows(bool oneRun, int controlQueues)
    {
        var plane = ControlPlane.Given(azurite.ConnectionString, out string? error) ?? throw new InvalidOperationException(error);
        using var results = CliTargets.ResultsStore(plane);
        string hubName = AzuriteFixture.NewHubSettings().HubName;

        await using (var hub = await CliTargets.StartHubAsync([azurite.Target], plane, results, hubName, null, null, CancellationToken.None, worker: false, oneRun: oneRun))
        {
            var queues = new List<string>();
            await foreach (var q in new QueueServiceClient(azurite.ConnectionString).GetQueuesAsync(prefix: hubName.ToLowerInvariant() + "-control-"))
            {
                queues.Add(q.Name);
            }
            Assert.Equal(controlQueues, queues.Count);
            bool leaseBlobs = await new Azure.Storage.Blobs.BlobServiceClient(azurite.ConnectionString).GetBlobContainerClient(hubName.ToLowerInvariant() + "-leases").ExistsAsync();
            bool partitionsTable = false;
            await foreach (var _ in new Azure.Data.Tables.TableServiceClient(azurite.ConnectionString).QueryAsync(t => t.Name == hubName + "Partitions"))
            {
                partitionsTable = true;
            }
            Assert.Equal((oneRun, !oneRun), (leaseBlobs, partitionsTable));
            hub.DeleteWhenDisposed();
        }
    }
}
