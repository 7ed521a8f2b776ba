using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// `storagebench serve`'s runs API on loopback with no engine and no storage behind it (<see cref="UnreachableClient"/>, an
/// account never contacted): for requests that must be refused, or answered by the API alone, before anything is looked up.
/// </summary>
internal sealed class EngineLessServe : IAsyncDisposable
{
    private readonly ResultsTableStore _results;

    private EngineLessServe(ResultsTableStore results, LoopbackServer server)
    {
        _results = results;
        Server = server;
        Http = new HttpClient { BaseAddress = server.Address };
    }

    public LoopbackServer Server { get; }

    /// <summary>A client of it, at its address.</summary>
    public HttpClient Http { get; }

    public static async Task<EngineLessServe> StartAsync()
    {
        var target = StorageTarget.FromConnectionString("UseDevelopmentStorage=true");
        var results = new ResultsTableStore(target);
        var server = await LocalApiServer.StartAsync(new RunsApi(new UnreachableClient(), results, new TargetCleaner([target]), TimeProvider.System, "local-api"), port: 0, default);
        return new EngineLessServe(results, server);
    }

    public async ValueTask DisposeAsync()
    {
        Http.Dispose();
        await Server.DisposeAsync();
        _results.Dispose();
    }
}
