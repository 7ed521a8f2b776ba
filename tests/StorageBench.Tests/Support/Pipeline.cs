using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>Starts a spec through the real starter and orchestrators on a task hub and waits for its assembled summary.</summary>
internal static class Pipeline
{
    public static Task<RunSummary> RunAsync(IRunOrchestrationClient host, string specJson, ResultsTableStore? results = null) =>
        RunAsync(host, RunSpecParser.ParseOrThrow(specJson), results);

    public static async Task<RunSummary> RunAsync(IRunOrchestrationClient host, RunSpec spec, ResultsTableStore? results = null)
    {
        var started = await new RunStarter(host, TimeProvider.System).StartAsync(spec, "test", null, default);
        Assert.True(started.Started, string.Join("; ", started.Errors));
        return await SummaryAsync(host, started.RunId!, results);
    }

    /// <summary>The same on a worker of its own (<see cref="AzuriteFixture.NewHubAsync"/>), slices writing to <paramref name="target"/> (default: the fixture's Azurite), stopped after.</summary>
    public static Task<RunSummary> RunAsync(AzuriteFixture azurite, StorageTarget? target, string specJson, ResultsTableStore? results = null) =>
        RunAsync(azurite, target, RunSpecParser.ParseOrThrow(specJson), results);

    public static async Task<RunSummary> RunAsync(AzuriteFixture azurite, StorageTarget? target, RunSpec spec, ResultsTableStore? results = null)
    {
        await using var hub = await azurite.NewHubAsync(target);
        return await RunAsync(hub, spec, results);
    }

    /// <summary>Waits for the run and puts its summary together (per-slice figures only when <paramref name="results"/> is given).</summary>
    public static async Task<RunSummary> SummaryAsync(IRunOrchestrationClient host, string runId, ResultsTableStore? results = null)
    {
        // A guard against a hang, not a speed limit: a 256-slice run takes minutes on a loaded 2-core machine.
        var state = await host.WaitForCompletionAsync(runId, default).WaitAsync(TimeSpan.FromMinutes(10));
        return await RunResults.LoadAsync(host, results, runId, default)
            ?? throw new Xunit.Sdk.XunitException($"run {runId} ended {state.RuntimeStatus}: {state.FailureMessage}");
    }
}
