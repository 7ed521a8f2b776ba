using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.TableInsert;

namespace StorageBench.Tests;

/// <summary>
/// No latency sample is shorter than the service took. Behind a loopback proxy that holds every request at least 40 ms,
/// every sample — min and every percentile included — is at least 40 ms, closed loop and open loop, lean and SDK driver,
/// table transactions, single inserts and blob Put Blocks; the service time too. An open loop's timer wakes up to a few ms
/// before a slot, so its latency runs from the earlier of the slot and the send: from the slot alone it would be shorter.
/// </summary>
[Trait("Category", "Azurite")]
[Collection(AzuriteCollection.Name)]
public class LatencyTruthTests(AzuriteFixture azurite)
{
    private static readonly TimeSpan Delay = TimeSpan.FromMilliseconds(40);

    public static TheoryData<string, string> Cases()
    {
        var data = new TheoryData<string, string>();
        foreach (string driver in new[] { ClientSettings.LeanDriver, ClientSettings.SdkDriver })
        {
            foreach (string kind in new[] { "batch closed", "batch open", "single closed", "single open", "blob closed" })
            {
                data.Add(driver, kind);
            }
        }
        return data;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task NoSampleIsShorterThanTheServiceTook(string driver, string kind)
    {
        var client = new ClientSettings { Driver = driver, PrimeRounds = 0 };
        bool blob = kind.StartsWith("blob", StringComparison.Ordinal);
        var (proxy, target) = await FaultProxy.DelayingInFrontOfAsync(azurite.ConnectionString, blob ? "BlobEndpoint" : "TableEndpoint", _ => true, Delay);
        await using var _ = proxy;
        var step = TestStep.New();
        WorkloadSummary summary;
        var verified = new VerificationResult(true, 0, 0, "units", "not checked here");
        if (blob)
        {
            await azurite.Blobs.CreateBlobContainerAsync(step.ContainerName);
            var spec = new BlobUploadSpec { BlobCount = 4, BlobSizeBytes = 4096, BlockSizeBytes = 1024, ParallelBlocks = 2 };
            var results = await Task.WhenAll(step.Blob(spec, client).Select(p => BlobUploadSlice.RunAsync(p, target, TimeProvider.System, default)));
            summary = BlobUploadRoom.SummarizeSlices(spec, results, verified);
        }
        else
        {
            await azurite.Tables.CreateTableAsync(step.TableName);
            bool single = kind.StartsWith("single", StringComparison.Ordinal);
            // Open loop at half of what 4 in flight can do at 40 ms each: the loops wait for their slots, where the timer wakes early.
            var spec = new TableInsertSpec
            {
                EntityCount = single ? 30 : 300, BatchSize = single ? 1 : 10, EntitySizeBytes = 64, Concurrency = 4,
                TargetOperationsPerSecond = kind.EndsWith("open", StringComparison.Ordinal) ? 50 : 0,
            };
            var results = await Task.WhenAll(step.Table(spec, client).Select(p => TableInsertSlice.RunAsync(p, target, TimeProvider.System, default)));
            summary = TableInsertRoom.SummarizeSlices(spec, results, verified);
        }

        var l = summary.LatencyMs;
        Assert.True(summary.Failed == 0 && l.Samples > 0, $"{summary.Failed} failed, {l.Samples} samples");
        double bar = Delay.TotalMilliseconds;
        Assert.True(l.Min >= bar, $"{driver} {kind}: min {l.Min} ms under the proxy's {bar} ms (p50 {l.P50}, max {l.Max})");
        Assert.True(new[] { l.P50, l.P70, l.P80, l.P90, l.P95, l.P99, l.P999, l.Max, l.Mean }.All(v => v >= bar), $"{driver} {kind}: {l}");
        Assert.True(summary.ServiceTimeMs!.Min >= bar, $"{driver} {kind}: service time {summary.ServiceTimeMs}");
    }

    [Fact]
    public void MinAndPercentilesAreTheirBucketsHighestValueNeverLower()
    {
        // 3 significant digits: 400,100 µs shares a bucket 256 µs wide; its lowest value (399,872) would understate it.
        var h = LatencyHistograms.Create();
        h.RecordValue(400_100);
        var l = SummaryCalculator.Latency(h);
        Assert.All(new[] { l.Min, l.P50, l.P95, l.P99, l.Max }, v => Assert.InRange(v!.Value, 400.1, 400.1 * 1.001));
    }
}
