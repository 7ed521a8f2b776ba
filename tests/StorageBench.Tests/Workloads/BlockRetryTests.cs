using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// Blob block retries as a real client makes them: never sooner than the service's retry-after, jittered so the block
/// loops do not come back in lockstep, and every attempt counted (a throttled one as throttled). What is asserted is
/// what the product chose (its waits) and counted, not how punctually the machine woke it.
/// </summary>
[Collection(AzuriteCollection.Name)]
[Trait("Category", "Azurite")]
public class BlockRetryTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    [Theory]
    [InlineData(ClientSettings.LeanDriver)]
    [InlineData(ClientSettings.SdkDriver)]
    public async Task ThrottledBlocksWaitWhatTheServiceAskedJitteredAndEveryAttemptIsCounted(string driver)
    {
        // The first 6 Put Blocks are answered 503 ServerBusy with x-ms-retry-after-ms: 300; everything else reaches Azurite.
        const int Throttled = 6;
        var (proxy, target) = await FaultProxy.InFrontOfAsync(azurite.ConnectionString, "BlobEndpoint",
            r => r.Method == "PUT" && r.Query["comp"] == "block", n => n <= Throttled ? Fault.Throttle : Fault.None);
        await using var _ = proxy;
        proxy.ThrottleHeaders = new Dictionary<string, string> { ["x-ms-retry-after-ms"] = "300" };
        var step = TestStep.New();
        await azurite.Blobs.CreateBlobContainerAsync(step.ContainerName);
        var spec = new BlobUploadSpec { BlobCount = 2, BlobSizeBytes = 8 * 65_536, BlockSizeBytes = 65_536, ParallelBlocks = 4, Slices = 1, BlockRetries = 3 };
        var plan = step.Blob(spec, new ClientSettings { Driver = driver, PrimeRounds = 0 }).Single();
        var delays = new BlockRetryDelays();

        var slice = await BlobUploadSlice.RunAsync(plan, target, TimeProvider.System, default, retryDelays: delays).WaitAsync(TimeSpan.FromMinutes(2));

        output.WriteLine($"{driver}: waits chosen {string.Join(", ", delays.Chosen.Select(d => $"{d.Wait.TotalMilliseconds:0.0} ms (asked {d.ServerDelay?.TotalMilliseconds} ms)"))}");
        // Every attempt counted: each throttled one as throttled, then the retry that went through.
        Assert.Equal(Throttled, proxy.Injected);
        Assert.Equal(Throttled, slice.Counts.Throttled);
        Assert.Equal(2 * 8 + 2, slice.Counts.Succeeded);          // 8 blocks and 1 commit per blob
        Assert.Equal(2 * 8 + 2 + Throttled, slice.Counts.Operations);
        Assert.Equal(2, slice.Objects);
        // One wait per retry, each honouring the service's 300 ms and jittered above it (×1.0–1.2), not all the same.
        Assert.Equal(Throttled, delays.Count);
        Assert.All(delays.Chosen, d =>
        {
            Assert.Equal(TimeSpan.FromMilliseconds(300), d.ServerDelay);
            Assert.InRange(d.Wait.TotalMilliseconds, 300, 360);
        });
        Assert.True(delays.Chosen.Select(d => d.Wait).Distinct().Count() > 1, "jittered: the waits are not all identical");
    }

    [Fact]
    public void WithoutARetryAfterTheBackOffDoublesWithJitterAndTheHeadersAreReadAsAzureCoreReadsThem()
    {
        var delays = new BlockRetryDelays(new Random(21));
        var first = Enumerable.Range(0, 200).Select(_ => delays.Next(1, null).Wait.TotalMilliseconds).ToList();
        var third = Enumerable.Range(0, 200).Select(_ => delays.Next(3, null).Wait.TotalMilliseconds).ToList();

        Assert.All(first, ms => Assert.InRange(ms, 80, 120));     // 100 ms ×0.8–1.2
        Assert.All(third, ms => Assert.InRange(ms, 320, 480));    // 400 ms ×0.8–1.2
        Assert.True(first.Distinct().Count() > 100, "jittered");
        Assert.Equal(TimeSpan.FromMilliseconds(3200), BlockRetryDelays.BackOff(9));   // capped
        Assert.Equal(400, delays.Count);
        Assert.Equal(BlockRetryDelays.Kept, delays.Chosen.Count);

        // retry-after-ms, then x-ms-retry-after-ms (milliseconds), then Retry-After (seconds); a huge ask is capped.
        Assert.Equal(TimeSpan.FromMilliseconds(250), BlockRetryDelays.FromHeaders(h => h switch { "retry-after-ms" => "250", "Retry-After" => "9", _ => null }));
        Assert.Equal(TimeSpan.FromMilliseconds(40), BlockRetryDelays.FromHeaders(h => h == "x-ms-retry-after-ms" ? "40" : null));
        Assert.Equal(TimeSpan.FromSeconds(2), BlockRetryDelays.FromHeaders(h => h == "Retry-After" ? "2" : null));
        Assert.Null(BlockRetryDelays.FromHeaders(_ => null));
        var huge = new Azure.RequestFailedException(503, "busy", "ServerBusy", null);
        huge.Data[BlockRetryDelays.ServerDelayKey] = TimeSpan.FromHours(1);
        Assert.Equal(BlockRetryDelays.MaxServerDelay, BlockRetryDelays.ServerDelay(huge));
    }
}
