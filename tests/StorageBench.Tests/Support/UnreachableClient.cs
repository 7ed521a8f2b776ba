using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// A client for tests of requests that must be rejected before anything is scheduled: any call fails the test, so a
/// request that reached the engine cannot pass unnoticed.
/// </summary>
internal sealed class UnreachableClient : IRunOrchestrationClient
{
    public Task<bool> TryScheduleAsync(string orchestratorName, string instanceId, object input, CancellationToken ct) => throw Reached(instanceId);

    public Task<OrchestrationState?> GetStateAsync(string instanceId, CancellationToken ct) => throw Reached(instanceId);

    public Task<OrchestrationState> WaitForCompletionAsync(string instanceId, CancellationToken ct) => throw Reached(instanceId);

    public Task TerminateAsync(string instanceId, string reason, CancellationToken ct) => throw Reached(instanceId);

    private static Xunit.Sdk.XunitException Reached(string instanceId) => new($"a rejected request reached the orchestration client (instance {instanceId})");
}
