using Microsoft.DurableTask;
using Microsoft.DurableTask.Client;
using StorageBench.Orchestration;

namespace StorageBench.Functions;

/// <summary>What RunStarter and RunsApi need of Durable Task's client, over the binding's DurableTaskClient.</summary>
internal sealed class DurableRunClient(DurableTaskClient client) : IRunOrchestrationClient
{
    /// <summary>How long TerminateAsync waits to see the instance end (the HTTP front end allows 230 s per request).</summary>
    private static readonly TimeSpan TerminateWait = TimeSpan.FromSeconds(60);

    public async Task<bool> TryScheduleAsync(string orchestratorName, string instanceId, object input, CancellationToken ct)
    {
        // Look first: for an id that exists, ScheduleNewOrchestrationInstanceAsync may silently do nothing
        // (pending or running instance) or start it afresh (finished one). Either way this run already exists.
        if (await client.GetInstanceAsync(instanceId, getInputsAndOutputs: false, ct).ConfigureAwait(false) is not null)
        {
            return false;
        }
        await client.ScheduleNewOrchestrationInstanceAsync(orchestratorName, input, new StartOrchestrationOptions(instanceId), ct).ConfigureAwait(false);
        return true;
    }

    public async Task<OrchestrationState?> GetStateAsync(string instanceId, CancellationToken ct) =>
        await client.GetInstanceAsync(instanceId, getInputsAndOutputs: true, ct).ConfigureAwait(false) is { } m ? State(m) : null;

    public async Task<OrchestrationState> WaitForCompletionAsync(string instanceId, CancellationToken ct) =>
        State(await client.WaitForInstanceCompletionAsync(instanceId, getInputsAndOutputs: true, ct).ConfigureAwait(false));

    /// <summary>Recursive: the step sub-orchestrations end too. Waits (bounded) until the instance reports an end state.</summary>
    public async Task TerminateAsync(string instanceId, string reason, CancellationToken ct)
    {
        await client.TerminateInstanceAsync(instanceId, new TerminateInstanceOptions { Output = reason, Recursive = true }, ct).ConfigureAwait(false);
        using var wait = CancellationTokenSource.CreateLinkedTokenSource(ct);
        wait.CancelAfter(TerminateWait);
        try
        {
            await client.WaitForInstanceCompletionAsync(instanceId, getInputsAndOutputs: false, wait.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            // Still ending: the caller reports the state it then reads.
        }
    }

    private static OrchestrationState State(OrchestrationMetadata m) => new(
        m.InstanceId, m.Name, Status(m.RuntimeStatus), m.CreatedAt.UtcDateTime, m.LastUpdatedAt.UtcDateTime,
        m.SerializedCustomStatus, m.SerializedOutput, m.FailureDetails?.ErrorMessage, m.SerializedInput);

    /// <summary>Suspended (and the obsolete statuses) count as Running: not ended.</summary>
    private static string Status(OrchestrationRuntimeStatus status) => status switch
    {
        OrchestrationRuntimeStatus.Pending => RuntimeStatus.Pending,
        OrchestrationRuntimeStatus.Completed => RuntimeStatus.Completed,
        OrchestrationRuntimeStatus.Failed => RuntimeStatus.Failed,
        OrchestrationRuntimeStatus.Terminated => RuntimeStatus.Terminated,
        _ => RuntimeStatus.Running,
    };
}
