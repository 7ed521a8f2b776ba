namespace StorageBench.Orchestration.Hosting;

/// <summary>
/// One event of an orchestration instance's history, as Durable Task records it (the subset these
/// orchestrators use). An orchestrator is rebuilt by replaying its history from the first event.
/// </summary>
public abstract record HistoryEvent
{
    /// <summary>Size of the event's payload (input, result or output JSON) in UTF-8 bytes.</summary>
    public virtual int PayloadBytes => 0;
}

/// <summary>An episode of the orchestrator began: <see cref="IRunOrchestrationContext.CurrentUtcDateTime"/> reads this until the next one.</summary>
public sealed record OrchestratorStarted(DateTime Timestamp) : HistoryEvent;

public sealed record ExecutionStarted(string Name, string? Input) : HistoryEvent
{
    public override int PayloadBytes => PayloadBudget.SizeOf(Input);
}

/// <summary>The orchestrator called an activity: its sequence number, name and serialized input.</summary>
public sealed record TaskScheduled(int EventId, string Name, string? Input) : HistoryEvent
{
    public override int PayloadBytes => PayloadBudget.SizeOf(Input);
}

public sealed record TaskCompleted(int ScheduledId, string Result) : HistoryEvent
{
    public override int PayloadBytes => PayloadBudget.SizeOf(Result);
}

/// <summary>The activity failed: its failure's type, message, stack and inner failure, as Durable Task's TaskFailed event carries them.</summary>
public sealed record TaskFailed(int ScheduledId, FailureDetails Failure) : HistoryEvent;

public sealed record SubOrchestrationCreated(int EventId, string Name, string InstanceId, string? Input) : HistoryEvent
{
    public override int PayloadBytes => PayloadBudget.SizeOf(Input);
}

public sealed record SubOrchestrationCompleted(int ScheduledId, string Result) : HistoryEvent
{
    public override int PayloadBytes => PayloadBudget.SizeOf(Result);
}

public sealed record SubOrchestrationFailed(int ScheduledId, FailureDetails Failure) : HistoryEvent;

public sealed record ExecutionCompleted(string? Output, string? FailureMessage) : HistoryEvent
{
    public override int PayloadBytes => PayloadBudget.SizeOf(Output);
}

/// <summary>A replay asked for something other than what history holds: the orchestrator is not deterministic.</summary>
public sealed class NonDeterministicOrchestrationException(string message) : Exception(message);
