using System.Collections.Concurrent;
using DurableTask.Core;
using DurableTask.Core.Command;
using DurableTask.Core.Middleware;

namespace StorageBench.TaskHub;

/// <summary>
/// The instances this process's worker is ending, for its own watchers: the orchestration dispatcher's middleware sees each
/// step's actions before the provider stores them, and a step that completes or fails its instance (not one that continues
/// it as new) wakes whoever waits on it. A watcher still reads the stored state: this only says when.
/// </summary>
internal sealed class Endings
{
    private readonly ConcurrentDictionary<string, TaskCompletionSource> _waiting = new(StringComparer.Ordinal);

    public Task Of(string instanceId) =>
        _waiting.GetOrAdd(instanceId, _ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;

    /// <summary>A watcher that stopped watching (its instance ended, or was terminated, which runs no step here).</summary>
    public void Forget(string instanceId) => _waiting.TryRemove(instanceId, out _);

    public async Task Observe(DispatchMiddlewareContext context, Func<Task> next)
    {
        await next().ConfigureAwait(false);
        if (context.GetProperty<OrchestratorExecutionResult>()?.Actions.OfType<OrchestrationCompleteOrchestratorAction>()
                .Any(a => a.OrchestrationStatus != OrchestrationStatus.ContinuedAsNew) == true
            && context.GetProperty<OrchestrationInstance>()?.InstanceId is { } instanceId
            && _waiting.TryRemove(instanceId, out var ending))
        {
            ending.TrySetResult();
        }
    }
}
