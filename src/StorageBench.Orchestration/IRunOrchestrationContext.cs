namespace StorageBench.Orchestration;

/// <summary>
/// The slice of Durable Task's orchestration context the orchestrator uses. Kept this small so a
/// Durable Functions adapter is a few one-line forwards, and so orchestrator code can only do what
/// replay allows: call activities and read the context's clock.
/// </summary>
public interface IRunOrchestrationContext
{
    string InstanceId { get; }

    /// <summary>Replay-safe clock (never DateTime.UtcNow in orchestrator code).</summary>
    DateTime CurrentUtcDateTime { get; }

    Task<TResult> CallActivityAsync<TResult>(string name, object? input);

    void SetCustomStatus(object? status);
}

/// <summary>Starting and watching orchestrations: what an entry point needs of a Durable Task client.</summary>
public interface IRunOrchestrationClient
{
    /// <summary>Starts a new instance; returns false (and starts nothing) when the instance id already exists.</summary>
    Task<bool> TryScheduleAsync(string orchestratorName, string instanceId, object input, CancellationToken ct);

    Task<OrchestrationState?> GetStateAsync(string instanceId, CancellationToken ct);

    Task<OrchestrationState> WaitForCompletionAsync(string instanceId, CancellationToken ct);
}

public static class RuntimeStatus
{
    public const string Pending = "Pending";
    public const string Running = "Running";
    public const string Completed = "Completed";
    public const string Failed = "Failed";
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
    string? FailureMessage);
