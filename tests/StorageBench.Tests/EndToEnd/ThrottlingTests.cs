using StorageBench.Engine.Reports;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;

namespace StorageBench.Tests;

[Trait("Category", "EndToEnd")]
[Collection(AzuriteCollection.Name)]
public class ThrottlingTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task InjectedThrottlingFromAFakeServiceProxyIsCountedExactlyAndNotRetriedAway()
    {
        // Every 4th write into a benchmark table (POST to /devstoreaccount1/sbt… or its $batch) gets 503 ServerBusy.
        var (proxy, target) = await ProxiedAsync("TableEndpoint", everyNth: 4, IsBenchmarkInsert);
        await using var _ = proxy;

        // Results go straight to Azurite: only benchmark writes pass the proxy.
        await using var host = await azurite.NewHubAsync(target);
        // No priming: the proxy's count is then the measured requests' alone.
        const string spec = """
            { "scenario": "throttle", "startDelaySeconds": 0, "client": { "primeRounds": 0 },
              "tableInsert": { "entityCount": 2000, "entitySizeBytes": 256, "batchSize": 50, "partitionCount": 2, "concurrency": 4, "slices": 2 } }
            """;
        var summary = await Pipeline.RunAsync(host, spec);
        var table = summary.Workloads.Single();
        // A quarter of the planned entities were never stored: the run says so instead of looking like a success.
        Assert.Equal(RunStatus.Failed, summary.Status);
        Assert.Equal((2000L, 1500L), (table.Planned, table.Stored));
        Assert.Contains(summary.Errors, e => e.Contains("tableInsert: 500 of 2,000 planned entities (25.0%) were not stored, over maxUnstoredShare 1%"));

        Assert.Equal(10, proxy.Injected);                 // 40 batches, every 4th throttled
        Assert.Equal(proxy.Injected, table.Throttled);
        Assert.Equal(40, table.Operations);
        Assert.Equal(30, table.Succeeded);
        Assert.Equal(1500, table.Entities);
        Assert.True(table.Verified.Matched, table.Verified.Detail);   // storage holds exactly the 1,500 that succeeded
        Assert.Equal(30, table.LatencyMs.Samples);                    // 503s are counted, not timed

        // With SDK retries on, the same injection is absorbed: effective throughput, nothing throttled.
        var parsed = RunSpecParser.ParseOrThrow(spec);
        var retrying = parsed with { Client = parsed.Client with { SdkRetries = true } };
        var retriedRun = await Pipeline.RunAsync(host, retrying);
        var retried = retriedRun.Workloads.Single();
        Assert.Equal(0, retried.Throttled);
        Assert.Equal(2000, retried.Entities);
        Assert.True(retried.Verified.Matched);
        Assert.Equal(RunStatus.Completed, retriedRun.Status);
    }

    [Fact]
    public async Task SaturationSearchFindsTheKneeOfAFakeServiceWithCapacityForTwoRequestsInFlight()
    {
        var (proxy, target) = await ProxiedAsync("TableEndpoint", everyNth: int.MaxValue, IsBenchmarkInsert, maxInFlight: 2);
        await using var _ = proxy;
        await using var host = await azurite.NewHubAsync(target);
        // 1 and 2 in flight fit the capacity (a rare overlap as one response ends and the next request
        // begins is tolerated by the 10% bound); 8 in flight cannot. This is the failure-share rule alone:
        // minThroughputGrowth 0 keeps the throughput-growth rule (SaturationKneeTests) out of it, since
        // Azurite behind the proxy need not get faster from 1 to 2 in flight on a busy machine.
        const string spec = """
            { "scenario": "saturation-knee", "startDelaySeconds": 0, "client": { "primeRounds": 0 },
              "tableInsert": { "entityCount": 400, "entitySizeBytes": 128, "batchSize": 10 },
              "saturation": { "parameter": "tableInsert.concurrency", "start": 1, "factor": 2, "max": 32, "maxFailedShare": 0.10, "maxP99Ms": 60000, "minThroughputGrowth": 0 } }
            """;

        var summary = await Pipeline.RunAsync(host, spec);

        var result = summary.Saturation!;
        Assert.InRange(result.HighestSustainableValue!.Value, 2, 4);
        Assert.Equal(result.HighestSustainableValue * 2, result.KneeValue);
        Assert.True(result.KneeValue <= 8, $"knee at {result.KneeValue}: {result.Reason}");
        Assert.Contains("failed share", result.Reason);
        Assert.Equal(summary.Workloads.Count, summary.Workloads.Select(w => w.StepValue).Distinct().Count());
        Assert.Equal(result.KneeValue, summary.Workloads[^1].StepValue);   // the search stopped at the knee
        Assert.All(summary.Workloads, w => Assert.True(w.Verified.Matched, w.Verified.Detail));
    }

    [Theory]
    [InlineData(3)]
    [InlineData(0)]
    public async Task ThrottledBlocksAreCountedRetriedAndABlobThatStillFailsIsNotCountedAsUploaded(int blockRetries)
    {
        // Every 10th Put Block of the measured blobs is answered 503 ServerBusy (the primer's blob is left alone).
        var (proxy, target) = await ProxiedAsync("BlobEndpoint", everyNth: 10,
            r => r.Method == "PUT" && r.Query["comp"] == "block" && !r.Path.Value!.Contains("/0primer0/"));
        await using var _ = proxy;
        await using var host = await azurite.NewHubAsync(target);
        string spec = $$"""
            { "scenario": "throttled-blobs", "startDelaySeconds": 0,
              "blobUpload": { "blobCount": 16, "blobSizeBytes": 262144, "blockSizeBytes": 32768, "parallelBlocks": 4, "slices": 2, "blockRetries": {{blockRetries}} } }
            """;

        var summary = await Pipeline.RunAsync(host, spec);
        var blob = summary.Workloads.SingleOrDefault() ?? throw new Xunit.Sdk.XunitException($"{summary.Status}: {string.Join("; ", summary.Errors)}");

        Assert.True(proxy.Injected > 0);
        Assert.Equal(proxy.Injected, blob.Throttled);              // every throttled attempt is counted, retried or not
        Assert.True(blob.Verified.Matched, blob.Verified.Detail);   // committed blobs = what storage holds
        Assert.Equal(blob.BlobsCommitted, blob.Verified.Actual / 262144);
        Assert.Equal(blob.BlobsCommitted * 262144L, blob.Bytes);   // goodput counts committed blobs only
        Assert.Equal(16, blob.BlobsPlanned);
        Assert.Equal(blob.BlobsPlanned - blob.BlobsCommitted, blob.BlobsFailed);
        Assert.Equal(blob.Succeeded, blob.LatencyMs.Samples + blob.BlobsCommitted);   // Put Blocks timed, commits counted
        if (blockRetries > 0)
        {
            // Each throttled block was sent again and went through: nothing lost, the run is a success.
            Assert.Equal(RunStatus.Completed, summary.Status);
            Assert.Equal(16, blob.BlobsCommitted);
            Assert.Equal(0, blob.BytesSentForFailedBlobs);
        }
        else
        {
            // No retries: a throttled block dooms its blob. The blocks staged for it are bytes sent for nothing.
            Assert.Equal(RunStatus.Failed, summary.Status);
            Assert.True(blob.BlobsFailed > 0);
            Assert.True(blob.BytesSentForFailedBlobs > 0);
            Assert.Equal(blob.BytesSent, blob.Bytes + blob.BytesSentForFailedBlobs);
            Assert.True(blob.Throughput.MegabytesPerSecond < blob.BlockThroughput!.MegabytesPerSecond);
            Assert.Contains(summary.Errors, e => e.StartsWith($"blobUpload: {blob.BlobsFailed} of 16 planned blobs", StringComparison.Ordinal));
            Assert.Contains("| Failed", ReportWriter.Markdown(summary) + "| " + summary.Status);
        }
    }

    /// <summary>A loopback proxy in front of one of Azurite's endpoints, and a target that reaches that endpoint through it.</summary>
    private Task<(FaultProxy Proxy, StorageTarget Target)> ProxiedAsync(string endpoint, int everyNth,
        Func<Microsoft.AspNetCore.Http.HttpRequest, bool> selects, long maxInFlight = long.MaxValue) =>
        FaultProxy.InFrontOfAsync(azurite.ConnectionString, endpoint, everyNth, selects, maxInFlight);

    /// <summary>A measured insert: a POST into a benchmark table or a transaction, not a slice's small preflight transaction.</summary>
    private static bool IsBenchmarkInsert(Microsoft.AspNetCore.Http.HttpRequest r) =>
        r.Method == "POST" && (r.Path.Value!.Contains("/sbt") || (r.Path.Value.EndsWith("$batch") && r.ContentLength > 4_000));
}
