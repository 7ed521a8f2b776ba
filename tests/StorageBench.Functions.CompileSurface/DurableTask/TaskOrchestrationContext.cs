// Mirrors Microsoft.DurableTask.Abstractions (1.x, as brought in by Microsoft.Azure.Functions.Worker.Extensions.DurableTask 1.16.5):
// namespace Microsoft.DurableTask. Transcribed from: microsoft/durabletask-dotnet src/Abstractions/TaskOrchestrationContext.cs
// (commit 1976de60). COMPILE-ONLY: the abstract members the app calls; the real class has many more (timers, events, ContinueAsNew...).
namespace Microsoft.DurableTask;

public abstract class TaskOrchestrationContext
{
    public abstract string InstanceId { get; }

    public abstract DateTime CurrentUtcDateTime { get; }

    public abstract T? GetInput<T>();

    public abstract Task<TResult> CallActivityAsync<TResult>(TaskName name, object? input = null, TaskOptions? options = null);

    public abstract void SetCustomStatus(object? customStatus);

    public abstract Task<TResult> CallSubOrchestratorAsync<TResult>(TaskName orchestratorName, object? input = null, TaskOptions? options = null);
}
