using System.Collections.Concurrent;
using System.Globalization;
using System.Text.RegularExpressions;
using Microsoft.AspNetCore.Http;

namespace StorageBench.Tests;

/// <summary>
/// Priming warms connections with small requests, never a share of the workload: what the target is sent (inserts) or
/// asked for (ranges, query entities) beyond the measured requests stays a few percent of them, at the default priming.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(AzuriteCollection.Name)]
public partial class PrimingShareTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task ATableInsertsPrimingSendsAFewPercentOfTheBytesItsMeasuredBatchesSend()
    {
        var batches = new ConcurrentBag<long>();
        bool Seen(HttpRequest r)
        {
            if (r.Method == "POST" && r.Path.Value!.EndsWith("$batch", StringComparison.Ordinal))
            {
                batches.Add(r.ContentLength ?? 0);
            }
            return false;
        }
        const string spec = """
            { "scenario": "priming-share", "startDelaySeconds": 2,
              "tableInsert": { "entityCount": 2000, "entitySizeBytes": 1024, "batchSize": 100, "partitionCount": 1, "concurrency": 4, "slices": 1 } }
            """;
        var (proxy, target) = await FaultProxy.InFrontOfAsync(azurite.ConnectionString, "TableEndpoint", int.MaxValue, Seen);
        await using (proxy)
        {
            var w = (await Pipeline.RunAsync(azurite, target, spec)).Workloads.Single();
            Assert.Equal(2000, w.Entities);
            Assert.True(w.Priming!.Requests > 1, "priming sent its rounds");
            // The 20 measured batches are the 20 largest; the rest (probe, primer inserts and deletes, verification's deletes) is overhead.
            var sizes = batches.OrderByDescending(b => b).ToList();
            long measured = sizes.Take(20).Sum();
            long rest = sizes.Skip(20).Sum();
            Assert.True(rest < measured / 20, $"priming and the rest sent {rest:N0} bytes in {sizes.Count - 20} batches beside the measured {measured:N0}");
        }
    }

    [Fact]
    public async Task ADownloadsPrimingAsksForAFewPercentOfTheBytesItsMeasuredRangesDo()
    {
        long asked = 0;
        bool Seen(HttpRequest r)
        {
            if (r.Method == "GET" && Range().Match(r.Headers["x-ms-range"].ToString()) is { Success: true } m)
            {
                Interlocked.Add(ref asked, long.Parse(m.Groups[2].Value, CultureInfo.InvariantCulture) - long.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture) + 1);
            }
            return false;
        }
        const string spec = """
            { "scenario": "priming-share-download", "startDelaySeconds": 2,
              "blobDownload": { "blobCount": 1, "blobSizeBytes": 8388608, "rangeSizeBytes": 1048576, "parallelRanges": 8, "downloadCount": 1, "slices": 1 } }
            """;
        var (proxy, target) = await FaultProxy.InFrontOfAsync(azurite.ConnectionString, "BlobEndpoint", int.MaxValue, Seen);
        await using (proxy)
        {
            var w = (await Pipeline.RunAsync(azurite, target, spec)).Workloads.Single();
            Assert.True(w.Priming!.Requests > 1, "priming sent its rounds");
            long measured = 8L << 20;
            Assert.True(asked - measured < measured / 20, $"{asked - measured:N0} bytes were asked for beside the measured {measured:N0}");
        }
    }

    [GeneratedRegex(@"^bytes=(\d+)-(\d+)$")]
    private static partial Regex Range();
}
