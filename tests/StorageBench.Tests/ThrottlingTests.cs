using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration;
using StorageBench.Orchestration.Hosting;
using StorageBench.Results;

namespace StorageBench.Tests;

[Collection(AzuriteCollection.Name)]
public class ThrottlingTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task InjectedThrottlingFromAFakeServiceProxyIsCountedExactlyAndNotRetriedAway()
    {
        // Every 4th write into a benchmark table (POST to /devstoreaccount1/sbt… or its $batch) gets 503 ServerBusy.
        var tableEndpoint = new Uri($"http://127.0.0.1:{new Uri(ExtractTableEndpoint(azurite.ConnectionString)).Port}/");
        await using var proxy = await ThrottlingProxy.StartAsync(tableEndpoint, everyNth: 4,
            IsBenchmarkInsert);
        string proxied = azurite.ConnectionString.Replace(ExtractTableEndpoint(azurite.ConnectionString), $"{proxy.Address.ToString().TrimEnd('/')}/devstoreaccount1");
        var target = StorageTarget.FromConnectionString(proxied);

        // Results go straight to Azurite: only benchmark writes pass the proxy.
        var host = azurite.NewHost(target);
        const string spec = """
            { "scenario": "throttle", "startDelaySeconds": 0,
              "tableInsert": { "entityCount": 2000, "entitySizeBytes": 256, "batchSize": 50, "partitionCount": 2, "concurrency": 4, "slices": 2 } }
            """;
        var summary = await Pipeline.RunAsync(host, spec);
        var table = summary.Workloads.Single();

        Assert.Equal(10, proxy.Injected);                 // 40 batches, every 4th throttled
        Assert.Equal(proxy.Injected, table.Throttled);
        Assert.Equal(40, table.Operations);
        Assert.Equal(30, table.Succeeded);
        Assert.Equal(1500, table.Entities);
        Assert.True(table.Verified.Matched, table.Verified.Detail);   // storage holds exactly the 1,500 that succeeded
        Assert.Equal(30, table.LatencyMs.Samples);                    // 503s are counted, not timed

        // With SDK retries on, the same injection is absorbed: effective throughput, nothing throttled.
        var retrying = RunSpecParser.ParseOrThrow(spec) with { Client = new ClientSettings { SdkRetries = true } };
        var retried = (await Pipeline.RunAsync(host, retrying)).Workloads.Single();
        Assert.Equal(0, retried.Throttled);
        Assert.Equal(2000, retried.Entities);
        Assert.True(retried.Verified.Matched);
    }

    [Fact]
    public async Task SaturationSearchFindsTheKneeOfAFakeServiceWithCapacityForTwoRequestsInFlight()
    {
        var tableEndpoint = new Uri($"http://127.0.0.1:{new Uri(ExtractTableEndpoint(azurite.ConnectionString)).Port}/");
        await using var proxy = await ThrottlingProxy.StartAsync(tableEndpoint, everyNth: int.MaxValue,
            IsBenchmarkInsert, maxInFlight: 2);
        string proxied = azurite.ConnectionString.Replace(ExtractTableEndpoint(azurite.ConnectionString), $"{proxy.Address.ToString().TrimEnd('/')}/devstoreaccount1");
        var target = StorageTarget.FromConnectionString(proxied);
        var host = azurite.NewHost(target);
        // 1 and 2 in flight fit the capacity (a rare overlap as one response ends and the next request
        // begins is tolerated by the 10% bound); 8 in flight cannot.
        const string spec = """
            { "scenario": "saturation-knee", "startDelaySeconds": 0,
              "tableInsert": { "entityCount": 400, "entitySizeBytes": 128, "batchSize": 10 },
              "saturation": { "parameter": "tableInsert.concurrency", "start": 1, "factor": 2, "max": 32, "maxFailedShare": 0.10, "maxP99Ms": 60000 } }
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

    /// <summary>A measured insert: a POST into a benchmark table or a transaction, not a slice's small preflight transaction.</summary>
    private static bool IsBenchmarkInsert(Microsoft.AspNetCore.Http.HttpRequest r) =>
        r.Method == "POST" && (r.Path.Value!.Contains("/sbt") || (r.Path.Value.EndsWith("$batch") && r.ContentLength > 4_000));

    private static string ExtractTableEndpoint(string connectionString) =>
        connectionString.Split(';').Single(p => p.StartsWith("TableEndpoint=", StringComparison.Ordinal))["TableEndpoint=".Length..];
}
