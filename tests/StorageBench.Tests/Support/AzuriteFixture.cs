using Azure.Data.Tables;
using Azure.Storage.Blobs;
using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Telemetry;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;
using StorageBench.TaskHub;

namespace StorageBench.Tests;

/// <summary>One real Azurite for the test run, from the repo's pinned npm package, on free loopback ports.</summary>
public sealed class AzuriteFixture : IAsyncLifetime
{
    private AzuriteServer? _server;

    public string ConnectionString => _server!.ConnectionString;

    public StorageTarget Target => StorageTarget.FromConnectionString(ConnectionString);

    public TableServiceClient Tables => new(ConnectionString);

    public BlobServiceClient Blobs => new(ConnectionString);

    /// <summary>The results tables in this Azurite.</summary>
    public ResultsTableStore Results => _results ??= new ResultsTableStore(Target);

    private ResultsTableStore? _results;

    private static int _hubs;

    /// <summary>
    /// A worker on a task hub of its own in this Azurite (results too), slices writing to this Azurite or another target.
    /// Its own hub: a test that replaces an activity must not serve another test's runs. Dispose it (await using): a
    /// worker polls its queues until then.
    /// </summary>
    public Task<LocalTaskHub> NewHubAsync(StorageTarget? target = null, TelemetryEmitter? telemetry = null, Action<TaskRegistry>? configure = null,
        Action<PayloadRecord>? payloads = null, Microsoft.Extensions.Logging.ILoggerFactory? loggers = null) =>
        BenchmarkTaskHub.StartAsync(Results.Target, [target ?? Target], Results, NewHubSettings() with { PayloadObserver = payloads, Loggers = loggers }, telemetry, loggers, configure);

    private LocalTaskHub? _clientHub;

    /// <summary>A client of a hub with no worker, shared by the tests of requests that must start nothing (a run started on it would never run).</summary>
    public async Task<LocalTaskHub> ClientHubAsync() => _clientHub ??= await LocalTaskHub.StartAsync(Target, NewHubSettings(), registry: null);

    /// <summary>Settings for a hub no other test uses.</summary>
    public static TaskHubSettings NewHubSettings() => new() { HubName = $"test{Interlocked.Increment(ref _hubs)}x{Guid.NewGuid():N}"[..24] };

    public async Task InitializeAsync()
    {
        // The test process drives slices as the CLI does, with the same thread-pool setting.
        DriverProcess.Configure();
        _server = await AzuriteServer.StartAsync();
    }

    public async Task DisposeAsync()
    {
        if (_clientHub is not null)
        {
            await _clientHub.DisposeAsync();
        }
        _results?.Dispose();
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }
    }

    public async Task<List<string>> TableNamesAsync()
    {
        var names = new List<string>();
        await foreach (var t in Tables.QueryAsync())
        {
            names.Add(t.Name);
        }
        return names;
    }

    /// <summary>The names of any table or container of the run's steps still in this Azurite.</summary>
    public async Task<List<string>> LeftoversOfAsync(string runId) =>
        [.. (await new TargetCleaner([Target]).OfRunAsync(runId, default)).Select(l => l.Name)];

    public async Task<List<string>> ContainerNamesAsync()
    {
        var names = new List<string>();
        await foreach (var c in Blobs.GetBlobContainersAsync())
        {
            names.Add(c.Name);
        }
        return names;
    }
}

// The shared Azurites. The classes of one collection run one after another on its Azurite, so a class may read the whole
// account (tables before and after) with no other class busy in it; the collections run side by side. The classes are
// spread by their measured time, about three minutes each with two CPU hogs, so no one chain holds up the suite.

/// <summary>Workloads, end-to-end runs and the dashboard in a browser.</summary>
[CollectionDefinition(Name)]
public sealed class AzuriteCollection : ICollectionFixture<AzuriteFixture>
{
    public const string Name = "Azurite: workloads and end-to-end runs";
}

/// <summary>The orchestrator, the runs API and the workers that share a run's slices.</summary>
[CollectionDefinition(Name)]
public sealed class OrchestrationAzuriteCollection : ICollectionFixture<AzuriteFixture>
{
    public const string Name = "Azurite: orchestration, the runs API and workers";
}

/// <summary>What runs leave and what reads it: results, reports, telemetry, comparisons, costs and the CLI's output.</summary>
[CollectionDefinition(Name)]
public sealed class ResultsAzuriteCollection : ICollectionFixture<AzuriteFixture>
{
    public const string Name = "Azurite: results, reports and the CLI's output";
}

/// <summary>The long fault tests: each holds a run against a failing target or control plane for a minute.</summary>
[CollectionDefinition(Name)]
public sealed class FaultsAzuriteCollection : ICollectionFixture<AzuriteFixture>
{
    public const string Name = "Azurite: faults";
}

/// <summary>For timing-sensitive tests: runs alone, with no other test class busy on the 2 cores.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class QuietAzuriteCollection : ICollectionFixture<AzuriteFixture>
{
    public const string Name = "Azurite, nothing else running";
}
