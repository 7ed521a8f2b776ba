using StorageBench.Engine.Workloads.TableInsert;
using System.Text.Json;
using StorageBench.Cli;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration;
using StorageBench.TaskHub;

namespace StorageBench.Tests;

/// <summary>
/// Spec → starter → orchestrator → activities → results table, against Azurite. The orchestration
/// runs on the local task hub, DurableTask.Core with the Azure Storage provider (docs/architecture.md).
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(AzuriteCollection.Name)]
public class EndToEndTests(AzuriteFixture azurite)
{
    private const string SmallSpec = """
        {
          "scenario": "e2e",
          "startDelaySeconds": 0.5,
          "tableInsert": { "entityCount": 2000, "entitySizeBytes": 512, "batchSize": 100, "partitionCount": 4, "concurrency": 2, "slices": 2 },
          "blobUpload": { "blobCount": 2, "blobSizeBytes": 1048576, "blockSizeBytes": 262144, "parallelBlocks": 2, "slices": 2 }
        }
        """;

    [Fact]
    public async Task SpecRunsThroughOrchestratorIntoTheResultsTableAndCleansUp()
    {
        await using var host = await azurite.NewHubAsync();
        var started = await new RunStarter(host, TimeProvider.System).StartAsync(SmallSpec, "test", null, default);
        Assert.True(started.Started, string.Join("; ", started.Errors));

        var summary = await Pipeline.SummaryAsync(host, started.RunId!, azurite.Results);
        Assert.Equal(RunStatus.Completed, summary.Status);
        Assert.Empty(summary.Errors);
        Assert.Equal("Azurite", summary.Environment.TargetKind);

        var table = summary.Workloads.Single(w => w.Workload == "tableInsert");
        Assert.Equal(2000, table.Entities);
        Assert.Equal(20, table.Succeeded);
        Assert.True(table.Verified.Matched);
        Assert.True(table.Throughput.EntitiesPerSecond > 0);
        Assert.True(table.ClientCpuMicrosecondsPerEntity > 0);
        Assert.Equal(table.LatencyMs.Samples, table.LatencyDistribution.Sum(b => b.Count));
        Assert.True(table.LatencyMs.P50 > 0 && table.LatencyMs.P50 <= table.LatencyMs.P99 && table.LatencyMs.P99 <= table.LatencyMs.Max);
        var blob = summary.Workloads.Single(w => w.Workload == "blobUpload");
        Assert.Equal(2 * 1048576L, blob.Bytes);
        Assert.True(blob.Verified.Matched);
        Assert.True(blob.Throughput.MegabytesPerSecond > 0);

        // The run row: typed columns, newest first by inverted ticks.
        var store = new ResultsTableStore(azurite.Target);
        var row = (await store.ListRunsAsync("e2e", 10, default)).Single(r => r.GetString("RunId") == summary.RunId);
        Assert.Equal(ResultsTableStore.RunRowKey(summary.StartedUtc, summary.RunId), row.RowKey);
        Assert.IsType<long>(row["TableEntities"]);
        Assert.Equal(2000L, row.GetInt64("TableEntities"));
        Assert.IsType<double>(row["TableEntitiesPerSecond"]);
        Assert.IsType<double>(row["BlobMegabytesPerSecond"]);
        Assert.Equal("Completed", row.GetString("Status"));
        Assert.Equal(4, (await store.ListSlicesAsync(summary.RunId, default)).Count);

        // The run's own table and container are gone.
        Assert.Empty(await azurite.LeftoversOfAsync(summary.RunId));
    }

    [Fact]
    public async Task InvalidSpecOnTheCommandLineExitsNonZeroNamingTheFieldAndCreatesNothing()
    {
        var tablesBefore = await azurite.TableNamesAsync();
        var containersBefore = await azurite.ContainerNamesAsync();
        string specFile = Path.Combine(Path.GetTempPath(), $"bad-{Guid.NewGuid():N}.json");
        await File.WriteAllTextAsync(specFile, """{ "scenario": "bad", "tableInsert": { "batchSize": 150 } }""");
        var stdout = new StringWriter();
        var stderr = new StringWriter();

        int exit = await CliApp.RunAsync(["run", "--spec", specFile, "--connection-string", azurite.ConnectionString, "--out", Path.GetTempPath()], stdout, stderr, default);

        Assert.Equal(2, exit);
        Assert.Contains("tableInsert.batchSize: 150 exceeds the service limit of 100", stderr.ToString());
        Assert.Equal(tablesBefore, await azurite.TableNamesAsync());
        Assert.Equal(containersBefore, await azurite.ContainerNamesAsync());
    }

    [Fact]
    public async Task CommandLineRunWritesSummaryJsonAndMarkdown()
    {
        string dir = Path.Combine(Path.GetTempPath(), $"sb-{Guid.NewGuid():N}");
        string specFile = Path.Combine(dir, "spec.json");
        Directory.CreateDirectory(dir);
        await File.WriteAllTextAsync(specFile, SmallSpec);
        var stdout = new StringWriter();

        int exit = await CliApp.RunAsync(["run", "--spec", specFile, "--connection-string", azurite.ConnectionString, "--out", dir], stdout, new StringWriter(), default);

        Assert.True(exit == 0, stdout.ToString());
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(dir, "summary.json")));
        var root = json.RootElement;
        Assert.Equal("Completed", root.GetProperty("status").GetString());
        foreach (var field in new[] { "runId", "startedUtc", "endedUtc", "spec", "environment", "workloads" })
        {
            Assert.True(root.TryGetProperty(field, out _), field);
        }
        var w = root.GetProperty("workloads")[0];
        foreach (var field in new[] { "operations", "succeeded", "failed", "throttled", "timedOut", "durationSeconds", "throughput", "peakPerSecond", "latencyMs", "verified" })
        {
            Assert.True(w.TryGetProperty(field, out _), field);
        }
        foreach (var field in new[] { "min", "p50", "mean", "p70", "p80", "p90", "p95", "p99", "p999", "max" })
        {
            Assert.True(w.GetProperty("latencyMs").TryGetProperty(field, out _), field);
        }
        Assert.Contains("| tableInsert |", await File.ReadAllTextAsync(Path.Combine(dir, "summary.md")));
        Assert.Contains("entities/s", stdout.ToString());
        // It ran on the Durable engine, on a task hub of the run's own in the hub store: the account under test holds none of it.
        string runId = root.GetProperty("runId").GetString()!;
        Assert.Contains($"task hub {TaskHubSettings.ForRun(runId)} in the hub store", stdout.ToString());
        // And once the run has ended, nothing of that hub is left in the hub store.
        using var results = await TestHubStore.ResultsAsync();
        Assert.Empty(await AccountContents.OfRunHubAsync(results.Target, runId));
    }

    [Fact]
    public async Task AFailedSliceStillCleansUpAndIsRecordedAsFailed()
    {
        var store = azurite.Results;
        await using var host = await azurite.NewHubAsync(configure: r =>
            r.AddActivity<SliceOrder, SliceResult>(ActivityNames.RunSlice, (_, _) => throw new InvalidOperationException("slice host crashed")));
        var spec = RunSpecParser.ParseOrThrow("""{ "scenario": "e2e-fail", "startDelaySeconds": 0, "tableInsert": { "entityCount": 100 } }""");
        string runId = Planner.NewRunId(DateTime.UtcNow);

        Assert.True(await host.TryScheduleAsync(BenchmarkOrchestrator.Name, runId, new RunRequest(spec, "test"), default));
        var summary = await Pipeline.SummaryAsync(host, runId);

        Assert.Equal(RunStatus.Failed, summary.Status);
        Assert.Contains(summary.Errors, e => e.Contains("slice host crashed") && e.StartsWith("tableInsert slice 0:"));
        Assert.Empty(await azurite.LeftoversOfAsync(runId));
        var row = (await store.ListRunsAsync("e2e-fail", 10, default)).Single(r => r.GetString("RunId") == runId);
        Assert.Equal("Failed", row.GetString("Status"));
    }

    [Fact]
    public async Task SlicesAreSpreadOverSeveralTargetAccountsAndGroundTruthCountsThemAll()
    {
        await using var second = await AzuriteServer.StartAsync();
        var targets = new[] { azurite.Target, StorageTarget.FromConnectionString(second.ConnectionString) };
        await using var host = await BenchmarkTaskHub.StartAsync(azurite.Results.Target, targets, azurite.Results, AzuriteFixture.NewHubSettings());
        var summary = await Pipeline.RunAsync(host, """
            { "scenario": "two-accounts", "startDelaySeconds": 0,
              "tableInsert": { "entityCount": 1000, "batchSize": 50, "slices": 4 },
              "blobUpload": { "blobCount": 4, "blobSizeBytes": 70000, "blockSizeBytes": 35000, "slices": 2 } }
            """, azurite.Results);

        Assert.Equal(RunStatus.Completed, summary.Status);
        Assert.Equal(2, summary.Environment.TargetAccounts);
        var table = summary.Workloads.Single(w => w.Workload == "tableInsert");
        Assert.Equal([0, 1, 0, 1], table.PerSlice.Select(s => s.TargetAccount));
        Assert.True(table.Verified.Matched, table.Verified.Detail);
        Assert.Contains("across 2 accounts", table.Verified.Detail);
        Assert.True(summary.Workloads.Single(w => w.Workload == "blobUpload").Verified.Matched);
        // Cleaned up in both accounts.
        var secondTables = new List<string>();
        await foreach (var t in new Azure.Data.Tables.TableServiceClient(second.ConnectionString).QueryAsync())
        {
            secondTables.Add(t.Name);
        }
        Assert.Empty(secondTables);
    }

    [Fact]
    public async Task TheCancelSignalStopsTheSlicesYetTheRunVerifiesDeletesItsTableAndIsStoredCanceled()
    {
        var store = azurite.Results;
        await using var host = await azurite.NewHubAsync();
        var started = await new RunStarter(host, TimeProvider.System).StartAsync(
            """{ "scenario": "cancel", "startDelaySeconds": 0, "tableInsert": { "batchSize": 10, "durationSeconds": 60 }, "blobUpload": { "blobCount": 1 } }""", "test", null, default);
        await Waits.ForEntitiesAsync(azurite.Target, started.RunId, 100, TimeSpan.FromSeconds(60));
        // As in Durable, nothing stops a running activity from outside: the run's cancel signal, which every slice watches, does.
        await store.RequestCancelAsync(started.RunId!, default);

        var summary = await Pipeline.SummaryAsync(host, started.RunId!).WaitAsync(TimeSpan.FromSeconds(45));

        Assert.Equal(RunStatus.Canceled, summary.Status);
        // The slices stopped, and what they did up to then is reported and verified.
        var table = summary.Workloads.Single();
        Assert.True(table.Entities > 0, "no figures for the canceled run");
        Assert.True(table.Verified.Matched, table.Verified.Detail);
        Assert.Empty(await azurite.LeftoversOfAsync(summary.RunId));
        // The workload the cancel kept from starting is in the summary too, with why it has no figures (it was dropped, unsaid).
        var blob = Assert.Single(summary.Unmeasured);
        Assert.Equal("blobUpload", blob.Workload);
        Assert.Matches(@"^not started: the run was canceled at \d\d:\d\d:\d\dZ$", blob.Reason);
        var row = (await store.ListRunsAsync("cancel", 5, default)).Single(r => r.GetString("RunId") == summary.RunId);
        Assert.Equal("Canceled", row.GetString("Status"));
        Assert.Equal($"blobUpload: {blob.Reason}", row.GetString(ResultsColumns.Unmeasured));
    }

    [Fact]
    public async Task TheNightlyInstanceIdStartsOneRunPerDayEvenWhenTheTimerFiresTwice()
    {
        await using var host = await azurite.NewHubAsync();
        var starter = new RunStarter(host, TimeProvider.System);
        string id = RunStarter.NightlyInstanceId(new DateTime(2026, 11, 22, 2, 0, 0, DateTimeKind.Utc)) + "-" + Guid.NewGuid().ToString("N")[..6];
        const string spec = """{ "scenario": "nightly-test", "startDelaySeconds": 0, "tableInsert": { "entityCount": 10, "batchSize": 10 } }""";

        var first = await starter.StartAsync(spec, "timer", id, default);
        var second = await starter.StartAsync(spec, "timer", id, default);

        Assert.True(first.Started);
        Assert.False(second.Started);
        Assert.True(second.AlreadyExisted);
        Assert.StartsWith("nightly-20261122", id);
        Assert.Equal(RuntimeStatus.Completed, (await host.WaitForCompletionAsync(id, default)).RuntimeStatus);
    }

    [Fact]
    public async Task TheOrchestratorRejectsAnInvalidSpecWithoutCallingAnyActivity()
    {
        // No activities registered: any call would fail the instance.
        await using var host = await LocalTaskHub.StartAsync(azurite.Target, AzuriteFixture.NewHubSettings(),
            new TaskRegistry().AddOrchestrator<RunRequest, RunSummary>(BenchmarkOrchestrator.Name, BenchmarkOrchestrator.RunAsync));
        var spec = new RunSpec { Scenario = "x", TableInsert = new TableInsertSpec { BatchSize = 150 } };
        await host.TryScheduleAsync(BenchmarkOrchestrator.Name, "invalid-run", new RunRequest(spec, "test"), default);

        await host.WaitForCompletionAsync("invalid-run", default);
        var summary = (await RunResults.LoadAsync(host, null, "invalid-run", default))!;
        Assert.Equal(RunStatus.Invalid, summary.Status);
        Assert.Contains(summary.Errors, e => e.StartsWith("tableInsert.batchSize: 150"));
    }
}
