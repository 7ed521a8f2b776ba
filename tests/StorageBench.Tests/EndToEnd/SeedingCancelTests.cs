using Microsoft.AspNetCore.Http;
using StorageBench.Engine.Statistics;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// A cancel while a read workload seeds stops the seeding within seconds, not after it, and the canceled run deletes what it
/// seeded without reading it back first: the workload is not started, nothing is verified, nothing is left.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(AzuriteCollection.Name)]
public class SeedingCancelTests(AzuriteFixture azurite)
{
    // 300,000 entities: 3,000 seeding transactions of 100, many seconds of Azurite's time even on a quiet machine.
    private const string Spec = """
        { "scenario": "cancel-seeding", "startDelaySeconds": 0,
          "tableRead": { "entityCount": 300000, "entitySizeBytes": 64, "partitionCount": 4, "slices": 2, "readCount": 1000 },
          "blobDownload": { "blobCount": 1, "blobSizeBytes": 65536 } }
        """;

    [Fact]
    public async Task ACancelDuringSeedingStopsItAndTheRunDeletesWhatWasSeededUnverified()
    {
        long batches = 0;
        bool Seen(HttpRequest r)
        {
            if (r.Method == "POST" && r.Path.Value!.EndsWith("$batch", StringComparison.Ordinal))
            {
                Interlocked.Increment(ref batches);
            }
            return false;
        }
        var (proxy, target) = await FaultProxy.InFrontOfAsync(azurite.ConnectionString, "TableEndpoint", int.MaxValue, Seen);
        await using (proxy)
        {
            await using var host = await azurite.NewHubAsync(target);
            var started = await new RunStarter(host, TimeProvider.System).StartAsync(Spec, "test", null, default);
            await Waits.UntilAsync(() => Task.FromResult(Interlocked.Read(ref batches) >= 20), TimeSpan.FromMinutes(2), "seeding under way");

            await azurite.Results.RequestCancelAsync(started.RunId!, default);
            var summary = await Pipeline.SummaryAsync(host, started.RunId!);
            long sentByThen = Interlocked.Read(ref batches);

            Assert.Equal(RunStatus.Canceled, summary.Status);
            // Seeding stopped with the cancel: far fewer than its 3,000 transactions went out, and none of the workload ran or was verified.
            Assert.True(sentByThen < 1_500, $"{sentByThen:N0} transactions were sent: seeding ran on after the cancel");
            Assert.Empty(summary.Workloads);
            Assert.Equal(["tableRead", "blobDownload"], summary.Unmeasured.Select(u => u.Workload));
            Assert.All(summary.Unmeasured, u => Assert.Matches(@"^not started: the run was canceled at \d\d:\d\d:\d\dZ$", u.Reason));
            Assert.Empty(await new Engine.Cleanup.TargetCleaner([azurite.Target]).OfRunAsync(summary.RunId, default));
        }
    }
}
