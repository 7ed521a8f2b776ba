using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Orchestration;
using StorageBench.Orchestration.Hosting;

namespace StorageBench.Tests;

/// <summary>Starts a spec through the real starter and orchestrators on a (replaying) host and waits for its assembled summary.</summary>
internal static class Pipeline
{
    public static Task<RunSummary> RunAsync(InProcessOrchestrationHost host, string specJson, ResultsTableStore? results = null) =>
        RunAsync(host, RunSpecParser.ParseOrThrow(specJson), results);

    public static async Task<RunSummary> RunAsync(InProcessOrchestrationHost host, RunSpec spec, ResultsTableStore? results = null)
    {
        var started = await new RunStarter(host, TimeProvider.System).StartAsync(spec, "test", null, default);
        Assert.True(started.Started, string.Join("; ", started.Errors));
        return await SummaryAsync(host, started.RunId!, results);
    }

    /// <summary>Waits for the run and puts its summary together (per-slice figures only when <paramref name="results"/> is given).</summary>
    public static async Task<RunSummary> SummaryAsync(InProcessOrchestrationHost host, string runId, ResultsTableStore? results = null)
    {
        var state = await host.WaitForCompletionAsync(runId, default).WaitAsync(TimeSpan.FromMinutes(3));
        return await RunResults.LoadAsync(host, results, runId, default)
            ?? throw new Xunit.Sdk.XunitException($"run {runId} ended {state.RuntimeStatus}: {state.FailureMessage}");
    }
}
