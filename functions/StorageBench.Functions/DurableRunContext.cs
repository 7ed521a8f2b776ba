using Microsoft.DurableTask;
using StorageBench.Orchestration;

namespace StorageBench.Functions;

/// <summary>
/// The orchestrators' view of Durable Task's orchestration context. Awaits stay on the orchestration's
/// synchronization context (no ConfigureAwait(false)): replay requires it.
/// </summary>
internal sealed class DurableRunContext(TaskOrchestrationContext context) : IRunOrchestrationContext
{
    public string InstanceId => context.InstanceId;

    public DateTime CurrentUtcDateTime => context.CurrentUtcDateTime;

    public async Task<TResult> CallActivityAsync<TResult>(string name, object? input)
    {
        try
        {
            return await context.CallActivityAsync<TResult>(name, input);
        }
        catch (TaskFailedException e)
        {
            throw Failed(name, e);
        }
    }

    public async Task<TResult> CallSubOrchestratorAsync<TResult>(string name, string instanceId, object? input)
    {
        try
        {
            return await context.CallSubOrchestratorAsync<TResult>(name, input, new SubOrchestrationOptions { InstanceId = instanceId });
        }
        catch (TaskFailedException e)
        {
            throw Failed(name, e);
        }
    }

    public void SetCustomStatus(object? status) => context.SetCustomStatus(status);

    /// <summary>The orchestrators catch ActivityFailedException, which carries Durable's failure details: type, message, stack and inner failure.</summary>
    private static ActivityFailedException Failed(string task, TaskFailedException e) => new(task, Details(e.FailureDetails));

    private static FailureDetails Details(TaskFailureDetails d) =>
        new(d.ErrorType, d.ErrorMessage, d.StackTrace, d.InnerFailure is { } inner ? Details(inner) : null);
}
