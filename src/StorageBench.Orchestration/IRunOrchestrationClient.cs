namespace StorageBench.Orchestration;

/// <summary>
/// Starting, watching and stopping orchestrations: what the entry points (runs API, CLI) need of a Durable Task client.
/// The Function App implements it over Durable Functions' DurableTaskClient, the local task hub over DurableTask.Core's TaskHubClient.
/// </summary>
public interface IRunOrchestrationClient
{
    /// <summary>Starts a new instance; returns false (and starts nothing) when the instance id already exists.</summary>
    Task<bool> TryScheduleAsync(string orchestratorName, string instanceId, object input, CancellationToken ct);

    Task<OrchestrationState?> GetStateAsync(string instanceId, CancellationToken ct);

    Task<OrchestrationState> WaitForCompletionAsync(string instanceId, CancellationToken ct);

    /// <summary>
    /// Completes once a worker in this process has run an instance's last orchestrator step, a few hub-store requests before
    /// its end state can be read, so a watcher reads then rather than at its next poll. Never completes where the instance
    /// runs in another process: watchers still poll.
    /// </summary>
    Task EndingAsync(string instanceId) => Never;

    private static readonly Task Never = new TaskCompletionSource().Task;

    /// <summary>
    /// Ends an instance and the step sub-orchestrations it started, without letting them run any more orchestrator code.
    /// As in Durable, an activity already running is not stopped: the run's cancel signal is what stops slices.
    /// </summary>
    Task TerminateAsync(string instanceId, string reason, CancellationToken ct);
}

public static class RuntimeStatus
{
    public const string Pending = "Pending";
    public const string Running = "Running";
    public const string Completed = "Completed";
    public const string Failed = "Failed";
    public const string Terminated = "Terminated";

    public static bool IsDone(string status) => status is Completed or Failed or Terminated;
}

/// <summary>An instance's state as an entry point reports it. Custom status and output are JSON.</summary>
public sealed record OrchestrationState(
    string InstanceId,
    string Name,
    string RuntimeStatus,
    DateTime CreatedUtc,
    DateTime LastUpdatedUtc,
    string? CustomStatusJson,
    string? OutputJson,
    string? FailureMessage,
    string? InputJson = null);
