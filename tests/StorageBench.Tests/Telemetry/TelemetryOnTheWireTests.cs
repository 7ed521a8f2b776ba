using System.Globalization;
using Microsoft.ApplicationInsights;
using Microsoft.ApplicationInsights.WorkerService;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using StorageBench.Cli;
using StorageBench.Engine.Preflight;
using StorageBench.Engine.Queries;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Telemetry;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads;
using StorageBench.Functions;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// What Kusto sees is what was measured: the real Application Insights SDK sends each kind of run to a loopback
/// ingestion endpoint, and every field each query under queries/ reads (parsed from the KQL by Kusto.Language) must be
/// on what arrived; the C# equivalents of the queries give on what arrived what they give on the runs' summaries.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(ResultsAzuriteCollection.Name)]
public class TelemetryOnTheWireTests(AzuriteFixture azurite)
{
    // Every room, small: a plain run's events must carry each room's own figures (read-first-byte.kql reads a download's and a query's).
    private const string EveryWorkload = """
        { "scenario": "wire-plain", "startDelaySeconds": 0, "client": { "primeRounds": 1 },
          "tableInsert": { "entityCount": 200, "entitySizeBytes": 256, "batchSize": 100 },
          "blobUpload": { "blobCount": 1, "blobSizeBytes": 65536, "blockSizeBytes": 65536 },
          "pageBlobUpload": { "blobCount": 1, "blobSizeBytes": 524288, "pageRangeBytes": 262144 },
          "tableRead": { "entityCount": 40, "entitySizeBytes": 256, "partitionCount": 1, "operation": "query", "queryEntities": 20, "readCount": 4 },
          "blobDownload": { "blobCount": 1, "blobSizeBytes": 262144, "rangeSizeBytes": 131072, "downloadCount": 2 },
          "appendBlobUpload": { "blobCount": 1, "blobSizeBytes": 131072, "appendSizeBytes": 65536 } }
        """;

    private const string Sweep = """
        { "scenario": "wire-sweep", "startDelaySeconds": 0, "tableInsert": { "entityCount": 200, "entitySizeBytes": 128 },
          "sweep": { "parameter": "tableInsert.batchSize", "values": [50, 100] } }
        """;

    private const string Saturation = """
        { "scenario": "wire-saturation", "startDelaySeconds": 0, "tableInsert": { "entityCount": 200, "entitySizeBytes": 128, "batchSize": 10 },
          "saturation": { "parameter": "tableInsert.concurrency", "start": 1, "factor": 2, "max": 2, "maxP99Ms": 60000, "minThroughputGrowth": 0 } }
        """;

    private const string Canceled = """{ "scenario": "wire-cancel", "startDelaySeconds": 0, "tableInsert": { "batchSize": 10, "durationSeconds": 120 } }""";

    // Every measured batch throttled (below): nothing stored, so the run fails with its errors (runs.kql reads them; an empty property is not sent).
    private const string Failed = """{ "scenario": "wire-failed", "startDelaySeconds": 0, "tableInsert": { "entityCount": 200, "entitySizeBytes": 256, "batchSize": 100 } }""";

    // A scenario without history: judged "not judged", which is still a verdict sent as StorageBenchRegression.
    private static readonly string Nightly = $$"""{ "scenario": "wire-nightly-{{Guid.NewGuid():N}}", "startDelaySeconds": 0, "tableInsert": { "entityCount": 100, "batchSize": 100 } }""";

    [Fact]
    public async Task EveryFieldTheQueriesReadArrivesAndTheQueriesGiveWhatTheSummariesGive()
    {
        await using var ingestion = await IngestionListener.StartAsync();
        using var telemetry = new TelemetryEmitter(ingestion.ConnectionString);
        await using var host = await azurite.NewHubAsync(telemetry: telemetry);
        var starter = new RunStarter(host, TimeProvider.System);
        var (proxy, throttledTarget) = await FaultProxy.InFrontOfAsync(azurite.ConnectionString, "TableEndpoint", 1, r => r.Method == "POST" && r.Path.Value!.EndsWith("$batch") && r.ContentLength > 2_000);
        await using var _ = proxy;
        await using var throttled = await azurite.NewHubAsync(throttledTarget, telemetry);

        // All five at once on one worker: the wire sees them interleaved, as a workspace does.
        var canceled = await StartAsync(starter.StartAsync(Canceled, "test", null, default));
        string[] ids = [await StartAsync(starter.StartAsync(EveryWorkload, "test", null, default)), await StartAsync(starter.StartAsync(Sweep, "test", null, default)),
            await StartAsync(starter.StartAsync(Saturation, "test", null, default)), await StartAsync(starter.StartNightlyAsync(Nightly, default)),
            await StartAsync(new RunStarter(throttled, TimeProvider.System).StartAsync(Failed, "test", null, default))];
        await Waits.ForEntitiesAsync(azurite.Target, canceled, 100, TimeSpan.FromMinutes(3));
        await azurite.Results.RequestCancelAsync(canceled, default);
        await SendRefusalLogAsync(host, ingestion.ConnectionString);
        var summaries = await Task.WhenAll(ids.Append(canceled).Select(id => Pipeline.SummaryAsync(id == ids[4] ? throttled : host, id)));
        var (plain, sweep, saturation, nightly, cancel) = (summaries[0], summaries[1], summaries[2], summaries[3], summaries[^1]);
        Assert.True(plain.Status == RunStatus.Completed, string.Join("; ", plain.Errors));
        Assert.Equal(RunStatus.Canceled, cancel.Status);
        Assert.Equal(RunStatus.Failed, summaries[4].Status);
        Assert.NotNull(nightly.Regression);
        Assert.NotNull(saturation.Saturation);

        var received = ingestion.Rows();
        var events = ingestion.AppEvents();
        // The sweep's step events name their step, as its summary does.
        var steps = events.Where(e => e.Name == TelemetryEmitter.WorkloadEvent && P(e, "runId") == sweep.RunId).ToList();
        Assert.Equal([("tableInsert.batchSize", "50"), ("tableInsert.batchSize", "100")], steps.Select(e => (P(e, "stepParameter"), P(e, "stepValue"))).OrderBy(s => double.TryParse(s.Item2, CultureInfo.InvariantCulture, out var v) ? v : double.NaN));
        Assert.All(events.Where(e => e.Name == TelemetryEmitter.WorkloadEvent && P(e, "runId") == saturation.RunId), e => Assert.Equal("tableInsert.concurrency", P(e, "stepParameter")));
        // Every room sent its event.
        Assert.Equal(WorkloadList.All.Select(w => w.Name).Order(), events.Where(e => e.Name == TelemetryEmitter.WorkloadEvent && P(e, "runId") == plain.RunId).Select(e => P(e, "workload")).Order());

        var unsent = (await KqlCheck.ReadsOfQueriesAsync()).Select(QueryReads.From).SelectMany(q => q.Unsent(received)).ToList();
        Assert.True(unsent.Count == 0, string.Join("\n", unsent));

        // The C# queries on what arrived give, run by run, what they give on the summaries (all but the time a row was sent).
        foreach (var summary in summaries)
        {
            var arrived = events.Where(e => P(e, "runId") == summary.RunId).ToList();
            foreach (var (name, query) in LocalQueries.Named)
            {
                Assert.True(Rows(query(TelemetryEvents.From(summary))).SequenceEqual(Rows(query(arrived))),
                    $"{name} of {summary.Spec?.Scenario}:\nmeasured {query(TelemetryEvents.From(summary)).ToMarkdown()}\narrived {query(arrived).ToMarkdown()}");
            }
        }
        var curve = LocalQueries.Named["sweep-curve"]([.. events.Where(e => P(e, "runId") == sweep.RunId)]);
        Assert.Equal(["50", "100"], curve.Rows.Select(r => r[0]));
        Assert.All(curve.Rows, r => Assert.True(double.Parse(r[1], CultureInfo.InvariantCulture) > 0, string.Join(" | ", r)));
        // Trends leave the steps of sweeps and searches out.
        Assert.DoesNotContain(LocalQueries.Named["throughput-trend"](events).Rows, r => r[1].StartsWith("wire-sweep", StringComparison.Ordinal) || r[1].StartsWith("wire-saturation", StringComparison.Ordinal));
    }

    [Fact]
    public async Task AQueryThatReadsAFieldNoEventSendsIsNamed()
    {
        string file = Path.Combine(Path.GetTempPath(), $"reads-{Guid.NewGuid():N}.kql");
        await File.WriteAllTextAsync(file, """
            AppEvents | where Name == "StorageBenchWorkload" | project v = todouble(Measurements.latencyP99Ms), s = tostring(Properties.stepNumber)
            """);
        var (_, lines) = await KqlCheck.RunAsync(true, file);
        var reads = QueryReads.From(Assert.Single(lines));
        var sent = new AppEvent(TelemetryEmitter.WorkloadEvent, DateTime.UtcNow, new Dictionary<string, string> { ["stepParameter"] = "x" }, new Dictionary<string, double> { ["latencyP99Ms"] = 1 });

        Assert.Equal([$"{Path.GetFileName(file)} reads Properties.stepNumber, which no StorageBenchWorkload event sent"], reads.Unsent([("AppEvents", sent)]));
        Assert.Equal([$"{Path.GetFileName(file)}: no StorageBenchWorkload event was sent"], reads.Unsent([("AppEvents", sent with { Name = TelemetryEmitter.RunEvent })]));
    }

    /// <summary>
    /// A run refused at preflight (a wrong key), its warning logged through the Function App's own Application Insights
    /// setup (<see cref="WorkerTelemetry"/>): logged-failures.kql reads those log items.
    /// </summary>
    private async Task SendRefusalLogAsync(IRunOrchestrationClient host, string connectionString)
    {
        var services = new ServiceCollection().AddSingleton<IConfiguration>(new ConfigurationBuilder().Build()).AddLogging().AddWorkerTelemetry()
            // Only the log channel is under test: the other tests' HTTP calls in this process are not tracked.
            .Configure<ApplicationInsightsServiceOptions>(o =>
            {
                o.ConnectionString = connectionString;
                o.EnableDependencyTrackingTelemetryModule = false;
                o.EnablePerformanceCounterCollectionModule = false;
                o.EnableEventCounterCollectionModule = false;
                o.EnableQuickPulseMetricStream = false;
                o.EnableHeartbeat = false;
            });
        await using var provider = services.BuildServiceProvider();
        var wrongKey = StorageTarget.Parse("target", azurite.ConnectionString.Replace(AzuriteServer.DevAccountKey, Convert.ToBase64String(new byte[64])));
        var starter = new RunStarter(host, TimeProvider.System) { Preflight = new StoragePreflight([wrongKey], null, provider.GetRequiredService<ILoggerFactory>().CreateLogger<RunsApi>()) };
        var refused = await starter.StartAsync(Failed, "test", null, default);
        Assert.NotNull(refused.Refused);
        await provider.GetRequiredService<TelemetryClient>().FlushAsync(default);
    }

    private static async Task<string> StartAsync(Task<RunStarter.StartResult> start)
    {
        var started = await start;
        Assert.True(started.Started, string.Join("; ", started.Errors));
        return started.RunId!;
    }

    /// <summary>A query's rows without the time column (the wire's time is when an event was sent), in one order.</summary>
    private static List<string> Rows(QueryTable table)
    {
        int time = table.Columns.ToList().IndexOf("TimeGenerated");
        return [.. table.Rows.Select(r => string.Join(" | ", r.Where((_, i) => i != time))).Order(StringComparer.Ordinal)];
    }

    private static string P(AppEvent e, string name) => e.Properties.GetValueOrDefault(name, "");
}
