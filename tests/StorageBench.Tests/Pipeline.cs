using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Orchestration;
using StorageBench.Orchestration.Hosting;

namespace StorageBench.Tests;

/// <summary>Starts a spec through the real starter and orchestrator on a host and waits for its summary.</summary>
internal static class Pipeline
{
    public static Task<RunSummary> RunAsync(InProcessOrchestrationHost host, string specJson) => RunAsync(host, RunSpecParser.ParseOrThrow(specJson));

    public static async Task<RunSummary> RunAsync(InProcessOrchestrationHost host, RunSpec spec)
    {
        var started = await new RunStarter(host, TimeProvider.System).StartAsync(spec, "test", null, default);
        Assert.True(started.Started, string.Join("; ", started.Errors));
        return RunStarter.SummaryOf(await host.WaitForCompletionAsync(started.RunId!, default))!;
    }
}
