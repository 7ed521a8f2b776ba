using StorageBench.Engine.Cost;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>
/// The transaction lines of real runs against Azurite, checked against what was planned and, independently,
/// against every request a proxy in front of the endpoint saw: nothing sent is missing, nothing is counted twice.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(ResultsAzuriteCollection.Name)]
public class CostTransactionCountTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task ATableRunCountsItsBatchesPrimingVerificationAndSetupAsTheServiceSawThem()
    {
        var (proxy, target) = await FaultProxy.InFrontOfAsync(azurite.ConnectionString, "TableEndpoint", int.MaxValue, _ => false);
        await using var _ = proxy;

        var summary = await Pipeline.RunAsync(azurite, target, """
            { "scenario": "cost-table", "startDelaySeconds": 3, "client": { "primeRounds": 3 },
              "tableInsert": { "entityCount": 1200, "entitySizeBytes": 256, "batchSize": 50, "partitionCount": 2, "concurrency": 2, "slices": 2 } }
            """);

        Assert.Equal(RunStatus.Completed, summary.Status);
        var table = summary.Workloads.Single();
        var line = table.Transactions.ToDictionary(l => l.Kind);
        // 1,200 entities in batches of 50.
        var writes = line["entity group transactions"];
        Assert.Equal((24L, 1200L, 0L), (writes.Requests, writes.Entities!.Value, writes.Failed!.Value));
        Assert.Equal(Phases.Run, writes.Phase);
        // Per slice: one probe (a 1-entity transaction), then 2 loops × 3 rounds × (insert 1, delete 1): priming opens
        // connections with the smallest transaction, never a share of the workload's entities.
        var priming = line["priming transactions (batch inserted, then deleted)"];
        Assert.Equal((2 * 13L, 2 * (1 + 12 * 1L)), (priming.Requests, priming.Entities!.Value));
        // Ground truth reads keys only, up to 1,000 rows a page.
        Assert.Equal(2, line["query pages (keys only, up to 1,000 rows each)"].Requests);
        Assert.Equal((1L, 1L), (line["Create Table"].Requests, line["Delete Table"].Requests));
        Assert.DoesNotContain("SDK retries", line.Keys);
        // Every request the table endpoint was sent is in the lines, once.
        Assert.Equal(proxy.Seen, table.Transactions.Sum(l => l.Requests));
        Assert.Equal(24 + 26 + 2 + 1 + 1, summary.Cost!.Workloads.Single().BilledTransactions);
    }

    [Fact]
    public async Task ABlobRunCountsBlobsTimesBlocksPutBlocksAndOnePutBlockListPerBlob()
    {
        var (proxy, target) = await FaultProxy.InFrontOfAsync(azurite.ConnectionString, "BlobEndpoint", int.MaxValue, _ => false);
        await using var _ = proxy;

        var summary = await Pipeline.RunAsync(azurite, target, """
            { "scenario": "cost-blob", "startDelaySeconds": 3, "client": { "primeRounds": 2 },
              "blobUpload": { "blobCount": 4, "blobSizeBytes": 100000, "blockSizeBytes": 25000, "parallelBlocks": 2, "slices": 2 } }
            """);

        Assert.Equal(RunStatus.Completed, summary.Status);
        var blob = summary.Workloads.Single();
        var line = blob.Transactions.ToDictionary(l => l.Kind);
        Assert.Equal(4 * 4, line["Put Block"].Requests);
        Assert.Equal(4, line["Put Block List"].Requests);
        Assert.Equal((0L, 0L), (line["Put Block"].Failed!.Value, line["Put Block List"].Failed!.Value));
        // Per slice: a probe; per primed loop (2): 2 Put Blocks, a Put Block List and a Delete Blob.
        Assert.Equal(2 * 2 * 3, line["priming Put Block and Put Block List"].Requests);
        Assert.Equal(2, line["priming probe (Get Container Properties)"].Requests);
        Assert.Equal(2 * 2, line["priming Delete Blob"].Requests);
        Assert.Equal(1, line["List Blobs pages"].Requests);
        Assert.Equal((1L, 1L), (line["Create Container"].Requests, line["Delete Container"].Requests));
        Assert.Equal(proxy.Seen, blob.Transactions.Sum(l => l.Requests));
        // Deletes are free on general-purpose v2 accounts: billed nothing.
        Assert.All(summary.Cost!.Workloads.Single().Lines.Where(l => l.BilledAs == BilledAs.Free), l => Assert.Equal(0, l.Billed));
        Assert.Equal(4 * 100_000L, blob.StoredBytes);
    }

    [Fact]
    public async Task ThrottledRequestsAreCountedAsSentAndSdkRetriesAreCountedOnTheWire()
    {
        // Every 4th measured batch is answered 503 ServerBusy.
        static bool Batch(Microsoft.AspNetCore.Http.HttpRequest r) => r.Method == "POST" && r.Path.Value!.EndsWith("$batch") && r.ContentLength > 4_000;
        const string spec = """
            { "scenario": "cost-throttled", "startDelaySeconds": 0, "client": { "primeRounds": 0 },
              "tableInsert": { "entityCount": 2000, "entitySizeBytes": 256, "batchSize": 50, "partitionCount": 2, "concurrency": 4, "slices": 2 } }
            """;
        var (proxy, target) = await FaultProxy.InFrontOfAsync(azurite.ConnectionString, "TableEndpoint", 4, Batch);
        await using (proxy)
        {
            var table = (await Pipeline.RunAsync(azurite, target, spec)).Workloads.Single();
            var writes = table.Transactions.Single(l => l.Phase == Phases.Run);
            // Throttled requests were sent and are billed: 40 batches, 10 of them throttled.
            Assert.Equal((40L, 10L), (writes.Requests, writes.Failed!.Value));
            Assert.Equal(proxy.Injected, table.Throttled);
            Assert.Equal(proxy.Seen, table.Transactions.Sum(l => l.Requests));
        }

        // With SDK retries on, each 503 is sent again by the SDK: the slices see one request, the wire two.
        var (retryProxy, retryTarget) = await FaultProxy.InFrontOfAsync(azurite.ConnectionString, "TableEndpoint", 4, Batch);
        await using (retryProxy)
        {
            var parsed = RunSpecParser.ParseOrThrow(spec);
            var table = (await Pipeline.RunAsync(azurite, retryTarget, parsed with { Client = parsed.Client with { SdkRetries = true } })).Workloads.Single();
            var retries = table.Transactions.Single(l => l.Kind == "SDK retries");
            Assert.True(retryProxy.Injected > 0);
            Assert.Equal(retryProxy.Injected, retries.Requests);
            Assert.Equal(0, table.Throttled);
            Assert.Equal(retryProxy.Seen, table.Transactions.Sum(l => l.Requests));
        }
    }
}
