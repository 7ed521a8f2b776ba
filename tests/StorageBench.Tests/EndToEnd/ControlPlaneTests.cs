using System.Diagnostics;
using System.Text.Json;
using StorageBench.Cli;
using StorageBench.Engine;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// The control plane apart from the account under test: the task hubs, signals, progress and results live in the hub
/// store, so the target holds nothing of the engine (also checked after a resume, ResumeAndScaleOutTests), a target needs
/// only the service its workload uses, and runs on one machine do not hold each other up.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(FaultsAzuriteCollection.Name)]
public class ControlPlaneTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    /// <summary>
    /// A target needs only the service its workload uses: a premium block blob account names only BlobEndpoint, and a
    /// table-only one only TableEndpoint. The run completes and verifies against an Azurite reached through that one endpoint.
    /// </summary>
    [Theory]
    [InlineData("blob")]
    [InlineData("table")]
    public async Task AWorkloadRunsAgainstAnEndpointOfItsServiceAloneCompletedAndVerified(string service)
    {
        await using var storage = await AzuriteServer.StartAsync();
        string only = $"DefaultEndpointsProtocol=http;AccountName={storage.Account};AccountKey={storage.Key};" +
            (service == "blob" ? $"BlobEndpoint=http://127.0.0.1:{storage.BlobPort}/{storage.Account};" : $"TableEndpoint=http://127.0.0.1:{storage.TablePort}/{storage.Account};");
        string dir = TempDir();
        string spec = await SpecAsync(dir, service == "blob"
            ? """{ "scenario": "blob-only", "startDelaySeconds": 0, "blobUpload": { "blobCount": 4, "blobSizeBytes": 65536, "blockSizeBytes": 16384 } }"""
            : """{ "scenario": "table-only", "startDelaySeconds": 0, "tableInsert": { "entityCount": 500, "batchSize": 50 } }""");

        var (exit, said) = await CliProcess.RunAsync(null, "run", "--spec", spec, "--connection-string", only, "--out", dir);

        Assert.True(exit == 0, said);
        var summary = JsonSerializer.Deserialize<RunSummary>(await File.ReadAllTextAsync(Path.Combine(dir, "summary.json")), JsonDefaults.Options)!;
        Assert.Equal(RunStatus.Completed, summary.Status);
        Assert.True(summary.Workloads.Single().Verified.Matched, summary.Workloads.Single().Verified.Detail);
        Assert.Empty(await AccountContents.AllAsync(StorageTarget.FromConnectionString(storage.ConnectionString)));
    }

    /// <summary>
    /// A control plane named by --hub-connection-string holds, once a run has ended, its results tables and nothing of the
    /// run's own task hub: no queue, no lease or app-lease container, no History or Instances table.
    /// </summary>
    [Fact]
    public async Task AGivenControlPlaneKeepsTheResultsAndNothingOfTheRunsHub()
    {
        await using var hub = await AzuriteServer.StartAsync();
        string dir = TempDir();
        string spec = await SpecAsync(dir, """{ "scenario": "given-hub", "startDelaySeconds": 0, "tableInsert": { "entityCount": 200, "batchSize": 100 } }""");

        var (exit, said) = await CliProcess.RunAsync(null, "run", "--spec", spec, "--connection-string", azurite.ConnectionString,
            "--hub-connection-string", hub.ConnectionString, "--out", dir);

        Assert.True(exit == 0, said);
        string runId = JsonSerializer.Deserialize<RunSummary>(await File.ReadAllTextAsync(Path.Combine(dir, "summary.json")), JsonDefaults.Options)!.RunId;
        var left = await AccountContents.AllAsync(StorageTarget.FromConnectionString(hub.ConnectionString));
        Assert.Contains("table StorageBenchRuns", left);
        Assert.Empty(await AccountContents.OfRunHubAsync(StorageTarget.FromConnectionString(hub.ConnectionString), runId));
        Assert.All(left, name => Assert.StartsWith("table StorageBench", name));
    }

    /// <summary>
    /// Three runs at once, and a run whose process was SIGKILLed mid-run, on one account and machine: the next small run
    /// waits for no lease (it ends within 25 s of one alone). On one shared task hub it waited for the killed process's partition leases (30 s).
    /// </summary>
    [Fact]
    public async Task RunsAtOnceAndAKilledRunDoNotHoldUpTheNextRun()
    {
        // The hub store stays up throughout (this process holds it), so neither timed run pays for starting its Azurite.
        using var held = await TestHubStore.ResultsAsync();
        string dir = TempDir();
        string small = await SpecAsync(dir, """{ "scenario": "next", "startDelaySeconds": 0, "tableInsert": { "entityCount": 2000, "batchSize": 100 } }""", "small.json");
        string busy = await SpecAsync(dir, """
            { "scenario": "busy", "startDelaySeconds": 0, "tableInsert": { "entityCount": 3000, "batchSize": 100, "targetOperationsPerSecond": 10 } }
            """, "busy.json");
        string killed = await SpecAsync(dir, """
            { "scenario": "killed", "startDelaySeconds": 0, "tableInsert": { "batchSize": 10, "durationSeconds": 120, "targetOperationsPerSecond": 20 } }
            """, "killed.json");

        var alone = await TimedRunAsync(small, dir, "alone");

        using var victim = CliProcess.Start(null, "run", "--spec", killed, "--connection-string", azurite.ConnectionString, "--out", Path.Combine(dir, "killed"));
        var concurrent = Enumerable.Range(0, 3).Select(i => CliProcess.RunAsync(null, "run", "--spec", busy, "--connection-string", azurite.ConnectionString,
            "--out", Path.Combine(dir, $"busy{i}"))).ToList();
        string victimRun = await CliOutput.RunIdAsync(victim);
        await Waits.ForEntitiesAsync(azurite.Target, victimRun, 100, TimeSpan.FromSeconds(120));
        victim.Kill();
        await victim.WaitForExitAsync();
        foreach (var (exit, said) in await Task.WhenAll(concurrent))
        {
            Assert.True(exit == 0, said);
        }

        var after = await TimedRunAsync(small, dir, "after");
        output.WriteLine($"small run alone {alone.TotalSeconds:0.0} s; after three at once and a SIGKILLed one {after.TotalSeconds:0.0} s");
        // What a held-up run waits for is a dead process's partition lease, 30 s; the suite's own load beside two CPU hogs
        // stretched the next run by up to 12 s, so the bound is below a lease, not the run's own time.
        Assert.True(after < alone + TimeSpan.FromSeconds(25), $"alone {alone.TotalSeconds:0.0} s, after {after.TotalSeconds:0.0} s");
    }

    private async Task<TimeSpan> TimedRunAsync(string spec, string dir, string name)
    {
        var took = Stopwatch.StartNew();
        var (exit, said) = await CliProcess.RunAsync(null, "run", "--spec", spec, "--connection-string", azurite.ConnectionString, "--out", Path.Combine(dir, name));
        took.Stop();
        Assert.True(exit == 0, said);
        var summary = JsonSerializer.Deserialize<RunSummary>(await File.ReadAllTextAsync(Path.Combine(dir, name, "summary.json")), JsonDefaults.Options)!;
        Assert.True(summary.Workloads.Single().Verified.Matched);
        return took.Elapsed;
    }

    private static string TempDir()
    {
        string dir = Path.Combine(Path.GetTempPath(), "sb-plane-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        return dir;
    }

    private static async Task<string> SpecAsync(string dir, string json, string name = "spec.json")
    {
        string file = Path.Combine(dir, name);
        await File.WriteAllTextAsync(file, json);
        return file;
    }
}
