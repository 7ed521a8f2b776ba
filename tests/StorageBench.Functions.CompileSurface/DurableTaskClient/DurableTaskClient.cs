// Mirrors Microsoft.DurableTask.Client (1.x, via Microsoft.Azure.Functions.Worker.Extensions.DurableTask 1.16.5): namespace Microsoft.DurableTask.Client.
// Transcribed from: microsoft/durabletask-dotnet src/Client/Core/DurableTaskClient.cs (commit 208aade2). COMPILE-ONLY: the four
// members the app calls, abstract/virtual as in the real class. The real class has more overloads (e.g. GetInstanceAsync(string,
// CancellationToken), TerminateInstanceAsync(string, object?, CancellationToken)); the app passes arguments that pick one overload
// in both, so this surface cannot hide an ambiguity.
using StorageBench.Functions.CompileSurface;

namespace Microsoft.DurableTask.Client;

public abstract class DurableTaskClient
{
    public abstract Task<string> ScheduleNewOrchestrationInstanceAsync(
        TaskName orchestratorName, object? input = null, StartOrchestrationOptions? options = null, CancellationToken cancellation = default);

    public abstract Task<OrchestrationMetadata> WaitForInstanceCompletionAsync(
        string instanceId, bool getInputsAndOutputs = false, CancellationToken cancellation = default);

    public virtual Task TerminateInstanceAsync(string instanceId, TerminateInstanceOptions? options = null, CancellationToken cancellation = default) =>
        throw new NotSupportedException(CompileOnly.Message);

    public virtual Task<OrchestrationMetadata?> GetInstanceAsync(string instanceId, bool getInputsAndOutputs = false, CancellationToken cancellation = default) =>
        throw new NotSupportedException(CompileOnly.Message);
}
