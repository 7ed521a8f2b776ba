using StorageBench.Engine;
using StorageBench.Engine.StorageCalls;

namespace StorageBench.Orchestration;

/// <summary>
/// The slice of Durable Task's orchestration context the orchestrators use. Kept this small so a
/// Durable Functions adapter is a few one-line forwards, and so orchestrator code can only do what
/// replay allows: call activities and sub-orchestrations, read the context's clock, set its status.
/// </summary>
public interface IRunOrchestrationContext
{
    string InstanceId { get; }

    /// <summary>Replay-safe clock (never DateTime.UtcNow in orchestrator code).</summary>
    DateTime CurrentUtcDateTime { get; }

    /// <summary>Calls an activity; a failure surfaces as <see cref="ActivityFailedException"/>.</summary>
    Task<TResult> CallActivityAsync<TResult>(string name, object? input);

    /// <summary>Runs a sub-orchestration with its own instance id (and its own history); a failure surfaces as <see cref="ActivityFailedException"/>.</summary>
    Task<TResult> CallSubOrchestratorAsync<TResult>(string name, string instanceId, object? input);

    void SetCustomStatus(object? status);
}

/// <summary>Starting, watching and stopping orchestrations: what an entry point needs of a Durable Task client.</summary>
public interface IRunOrchestrationClient
{
    /// <summary>Starts a new instance; returns false (and starts nothing) when the instance id already exists.</summary>
    Task<bool> TryScheduleAsync(string orchestratorName, string instanceId, object input, CancellationToken ct);

    Task<OrchestrationState?> GetStateAsync(string instanceId, CancellationToken ct);

    Task<OrchestrationState> WaitForCompletionAsync(string instanceId, CancellationToken ct);

    /// <summary>Ends an instance and the sub-orchestrations it is running, without letting it run any more code.</summary>
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

/// <summary>
/// An activity or sub-orchestration failed. Like Durable Task's TaskFailedException it carries the
/// failure's details (type name, message, stack, inner failure), not the exception itself: failures cross
/// a serialization boundary.
/// </summary>
public sealed class ActivityFailedException(string task, FailureDetails failure)
    : Exception($"{task} failed: {FailureDetails.ShortName(failure.ErrorType)}: {ErrorText.Compact(failure.ErrorMessage)}")
{
    public ActivityFailedException(string task, string errorType, string errorMessage)
        : this(task, new FailureDetails(errorType, errorMessage, null, null))
    {
    }

    public string Task { get; } = task;

    public FailureDetails Failure { get; } = failure;

    public string ErrorType => Failure.ErrorType;

    public string ErrorMessage => Failure.ErrorMessage;

    /// <summary>The task was stopped (host shutdown, Ctrl+C), not broken.</summary>
    public bool IsCancellation => Failure.IsCausedBy<OperationCanceledException>();

    /// <summary>
    /// The message, and for a failure that is not a classified storage failure (a bug, not storage) its inner
    /// failures and stack: what a summary's errors say about it.
    /// </summary>
    public string Report() =>
        Failure.IsCausedBy<StorageCallFailedException>() || Failure.Report() is not { Length: > 0 } details ? Message : $"{Message}; {details}";
}
