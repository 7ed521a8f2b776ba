using StorageBench.Engine.Reports;

namespace StorageBench.Tests;

/// <summary>Throttling during priming is reported apart from the measured window, so every 503 the service sent is accounted for.</summary>
[Trait("Category", "EndToEnd")]
[Collection(AzuriteCollection.Name)]
public class PrimingOutcomeTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task EveryInjected503IsInTheMeasuredCountsOrInPrimingNeverLost()
    {
        // Every 3rd batch is answered 503, priming's batches (probe, inserts, deletes) included.
        static bool Batch(Microsoft.AspNetCore.Http.HttpRequest r) => r.Method == "POST" && r.Path.Value!.EndsWith("$batch");
        const string spec = """
            { "scenario": "priming-outcomes", "startDelaySeconds": 3, "maxUnstoredShare": 1, "client": { "primeRounds": 4 },
              "tableInsert": { "entityCount": 2000, "entitySizeBytes": 256, "batchSize": 50, "partitionCount": 1, "concurrency": 4, "slices": 1 } }
            """;
        var (proxy, target) = await FaultProxy.InFrontOfAsync(azurite.ConnectionString, "TableEndpoint", 3, Batch);
        await using (proxy)
        {
            var summary = await Pipeline.RunAsync(azurite, target, spec);
            var w = summary.Workloads.Single();
            var priming = w.Priming!;

            Assert.True(priming.Throttled > 0, $"no priming request was throttled: {priming}");
            // The rest were verification's deletes of primer rows a throttled priming delete left (sent with SDK retries).
            long elsewhere = proxy.Injected - w.Throttled - priming.Throttled;
            Assert.InRange(elsewhere, 0, w.Verified.Requests?.Deletes ?? 0);
            Assert.True(priming.Failed >= priming.Throttled);
            // The probe's 404 is an answer, not a failure: only the 503s failed.
            Assert.Equal(priming.Throttled, priming.Failed);
            Assert.Contains($"Priming (before the start, not in the figures above): {priming.Requests:N0} requests, {priming.Throttled:N0} throttled",
                ReportWriter.Markdown(summary));
        }
    }
}

/// <summary>Every summary and result row says how busy the machine was and which build and emulator ran.</summary>
[Trait("Category", "EndToEnd")]
[Collection(AzuriteCollection.Name)]
public class RunEnvironmentTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task ASummaryAndItsRowRecordLoadOtherProcessesCpuTheBuildAndAzuritesVersion()
    {
        const string spec = """{ "scenario": "environment", "startDelaySeconds": 0.5, "tableInsert": { "entityCount": 200, "batchSize": 50 } }""";
        var summary = await Pipeline.RunAsync(azurite, null, spec, azurite.Results);
        var env = summary.Environment;

        Assert.NotNull(env.LoadAverageStart);
        Assert.NotNull(env.LoadAverageEnd);
        Assert.InRange(env.OtherProcessesCpuShare!.Value, 0, 1);
        Assert.Matches(@"^\d+\.\d+\.\d+", env.ToolVersion);
        Assert.StartsWith("Azurite-", env.EmulatorVersion);
        Assert.Contains($"emulator {env.EmulatorVersion}", ReportWriter.Markdown(summary));
        Assert.Contains("Azure.Data.Tables", env.AzureSdk!.Keys);
        Assert.NotNull(env.GarbageCollector);

        var stored = (await azurite.Results.LoadRunFiguresAsync(summary.RunId, default))!.Environment!;
        Assert.Equal((env.LoadAverageStart, env.OtherProcessesCpuShare, env.ToolCommit, env.EmulatorVersion),
            (stored.LoadAverageStart, stored.OtherProcessesCpuShare, stored.ToolCommit, stored.EmulatorVersion));
    }
}
