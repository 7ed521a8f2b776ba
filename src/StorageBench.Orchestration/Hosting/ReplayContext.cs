using System.Text.Json;
using StorageBench.Engine;

namespace StorageBench.Orchestration.Hosting;

/// <summary>What an orchestrator call scheduled.</summary>
internal enum ActionKind
{
    Activity,
    SubOrchestration,
}

/// <summary>A call the orchestrator made, pending until history answers it.</summary>
internal sealed record PendingAction(int Id, ActionKind Kind, string Name, string? InstanceId, string? Input, Action<string> OnCompleted, Action<FailureDetails> OnFailed);

/// <summary>What one replay ended with: the output or failure when the orchestrator returned, else the calls it newly made.</summary>
internal sealed record Episode(bool Done, string? Output, FailureDetails? Failure, IReadOnlyList<PendingAction> NewActions, string? CustomStatus);

/// <summary>Not history: a continuation of orchestrator code arrived after its episode (it awaited a non-durable task).</summary>
internal sealed record LateViolation(string Message) : HistoryEvent;

/// <summary>The orchestrator's view during one episode: calls get sequence numbers and stay pending until history answers them.</summary>
internal sealed class ReplayContext(string instanceId, EpisodeSynchronizationContext sync) : IRunOrchestrationContext
{
    private readonly List<PendingAction> _actions = [];
    private readonly HashSet<int> _matched = [];

    public string InstanceId => instanceId;

    public DateTime CurrentUtcDateTime { get; set; }

    public bool IsReplaying { get; set; }

    public string? CustomStatus { get; private set; }

    public Task<TResult> CallActivityAsync<TResult>(string name, object? input) => Schedule<TResult>(ActionKind.Activity, name, null, input);

    public Task<TResult> CallSubOrchestratorAsync<TResult>(string name, string instanceId, object? input) =>
        Schedule<TResult>(ActionKind.SubOrchestration, name, instanceId, input);

    public void SetCustomStatus(object? status)
    {
        sync.CheckThread("SetCustomStatus");
        CustomStatus = status is null ? null : JsonSerializer.Serialize(status, JsonDefaults.Compact);
    }

    private Task<TResult> Schedule<TResult>(ActionKind kind, string name, string? childId, object? input)
    {
        sync.CheckThread(name);
        var done = new TaskCompletionSource<TResult>();
        string task = (kind == ActionKind.Activity ? "activity " : "sub-orchestration ") + name;
        _actions.Add(new PendingAction(_actions.Count, kind, name, childId, input is null ? null : JsonSerializer.Serialize(input, JsonDefaults.Compact),
            json => done.TrySetResult(JsonSerializer.Deserialize<TResult>(json, JsonDefaults.Compact)!),
            failure => done.TrySetException(new ActivityFailedException(task, failure))));
        return done.Task;
    }

    /// <summary>History says call <paramref name="id"/> was this one; the replay must have asked for exactly that.</summary>
    public void Match(int id, ActionKind kind, string name, string? childId, string? input)
    {
        string recorded = $"{kind} {name}{(childId is null ? "" : $" ({childId})")} with input {input ?? "null"}";
        if (id >= _actions.Count)
        {
            throw new NonDeterministicOrchestrationException(
                $"instance {instanceId}: history holds call #{id}, {recorded}, but the replay made only {_actions.Count} call(s) by then");
        }
        var a = _actions[id];
        if (a.Kind != kind || a.Name != name || a.InstanceId != childId || a.Input != input)
        {
            throw new NonDeterministicOrchestrationException(
                $"instance {instanceId}: replay asked for {a.Kind} {a.Name}{(a.InstanceId is null ? "" : $" ({a.InstanceId})")} with input {a.Input ?? "null"} " +
                $"as call #{id}, but history holds {recorded}");
        }
        _matched.Add(id);
    }

    public void Complete(int id, string result) => _actions[id].OnCompleted(result);

    public void Fail(int id, FailureDetails failure) => _actions[id].OnFailed(failure);

    public IReadOnlyList<PendingAction> NewActions() => [.. _actions.Where(a => !_matched.Contains(a.Id))];
}
