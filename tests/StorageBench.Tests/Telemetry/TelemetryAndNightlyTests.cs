using System.Text.Json;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Telemetry;
using StorageBench.Orchestration;
using StorageBench.TaskHub;

namespace StorageBench.Tests;

/// <summary>Application Insights ingestion is faked by a loopback listener: Azure cannot be reached from here.</summary>
[Trait("Category", "EndToEnd")]
[Collection(ResultsAzuriteCollection.Name)]
public class TelemetryAndNightlyTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task ARunIsSentToAFakeIngestionEndpointAsOneEventPerRunAndPerWorkload()
    {
        await using var ingestion = await IngestionListener.StartAsync();
        using var telemetry = new TelemetryEmitter(ingestion.ConnectionString);
        await using var host = await azurite.NewHubAsync(telemetry: telemetry);
        const string spec = """
            { "scenario": "telemetry", "startDelaySeconds": 0,
              "tableInsert": { "entityCount": 500, "entitySizeBytes": 256, "batchSize": 50, "partitionCount": 2 },
              "blobUpload": { "blobCount": 1, "blobSizeBytes": 100000, "blockSizeBytes": 50000 } }
            """;
        var summary = await Pipeline.RunAsync(host, spec);
        Assert.Empty(summary.Errors);

        Assert.Contains(ingestion.Paths, p => p.EndsWith("/track", StringComparison.Ordinal));
        var run = Assert.Single(ingestion.Events(TelemetryEmitter.RunEvent));
        Assert.Equal(summary.RunId, run.GetProperty("properties").GetProperty("runId").GetString());
        Assert.Equal("Completed", run.GetProperty("properties").GetProperty("status").GetString());

        var workloads = ingestion.Events(TelemetryEmitter.WorkloadEvent);
        Assert.Equal(2, workloads.Count);
        var table = workloads.Single(w => Prop(w, "workload") == "tableInsert");
        Assert.Equal("telemetry", Prop(table, "scenario"));
        Assert.Equal("Azurite", Prop(table, "targetKind"));
        Assert.Equal("50", Prop(table, "batchSize"));
        Assert.Equal("2", Prop(table, "partitionCount"));
        Assert.Equal("true", Prop(table, "verified"));
        var m = table.GetProperty("measurements");
        Assert.Equal(500, m.GetProperty("entities").GetDouble());
        Assert.Equal(10, m.GetProperty("operations").GetDouble());
        Assert.Equal(summary.Workloads[0].LatencyMs.P99!.Value, m.GetProperty("latencyP99Ms").GetDouble(), 6);
        Assert.True(m.GetProperty("entitiesPerSecond").GetDouble() > 0);
        var blob = workloads.Single(w => Prop(w, "workload") == "blobUpload");
        Assert.Equal("50000", Prop(blob, "blockSizeBytes"));
        Assert.True(blob.GetProperty("measurements").GetProperty("megabitsPerSecond").GetDouble() > 0);
    }

    [Fact]
    public async Task TheNightlyRunIsJudgedAgainstItsBaselineAndTheVerdictIsStoredAndSent()
    {
        string scenario = "nightly-" + Guid.NewGuid().ToString("N")[..6];
        var store = new ResultsTableStore(azurite.Target);
        // Fourteen earlier nights far slower than Azurite: tonight must come out "improved".
        for (int night = 14; night >= 1; night--)
        {
            await store.SaveAsync(TestData.Run(scenario, DateTime.UtcNow.AddDays(-night), TestData.TableWorkload(rate: 10 + night % 3, p99: 5_000)), default);
        }
        await using var ingestion = await IngestionListener.StartAsync();
        using var telemetry = new TelemetryEmitter(ingestion.ConnectionString);
        await using var host = await BenchmarkTaskHub.StartAsync(store.Target, [azurite.Target], store, AzuriteFixture.NewHubSettings(), telemetry);
        // Long enough to judge: at least 5 whole seconds with the slice active (docs/comparing.md, "The rule").
        string spec = $$"""{ "scenario": "{{scenario}}", "startDelaySeconds": 0, "tableInsert": { "durationSeconds": 7, "batchSize": 100 } }""";

        var started = await new RunStarter(host, TimeProvider.System).StartNightlyAsync(spec, default);
        Assert.StartsWith("nightly-", started.RunId);
        var summary = await Pipeline.SummaryAsync(host, started.RunId!);

        Assert.Equal(VerdictWords.Improved, summary.Regression!.Verdict);
        Assert.Equal(14, summary.Regression.BaselineRuns);
        var row = (await store.ListRunsAsync(scenario, 1, default)).Single();
        Assert.Equal(summary.RunId, row.GetString("RunId"));
        Assert.Equal("improved", row.GetString("RegressionVerdict"));
        var sent = Assert.Single(ingestion.Events(TelemetryEmitter.RegressionEvent));
        Assert.Equal("improved", Prop(sent, "verdict"));

        // A scenario without history is not judged "ok": it says it has no baseline.
        string fresh = $$"""{ "scenario": "{{scenario}}-new", "startDelaySeconds": 0, "tableInsert": { "durationSeconds": 7, "batchSize": 100 } }""";
        var second = await new RunStarter(host, TimeProvider.System).StartAsync(fresh, "timer", null, default, checkRegression: true);
        Assert.Equal(VerdictWords.NotJudged, (await Pipeline.SummaryAsync(host, second.RunId!)).Regression!.Verdict);

        // A run too short to know its noise is not judged, against the same 14 slower nights: never "improved" or "regressed".
        string brief = $$"""{ "scenario": "{{scenario}}", "startDelaySeconds": 0, "tableInsert": { "entityCount": 200, "batchSize": 100 } }""";
        var third = await new RunStarter(host, TimeProvider.System).StartAsync(brief, "timer", null, default, checkRegression: true);
        var shortVerdict = (await Pipeline.SummaryAsync(host, third.RunId!)).Regression!;
        Assert.Equal(VerdictWords.NotJudged, shortVerdict.Verdict);
        // The one change rule says why and what to change.
        Assert.Contains(StorageBench.Engine.Comparison.ChangeRule.DurationFix, shortVerdict.Reason);
    }

    private static string? Prop(JsonElement baseData, string name) => baseData.GetProperty("properties").GetProperty(name).GetString();
}
