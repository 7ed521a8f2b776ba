using System.Threading.Channels;

namespace StorageBench.Orchestration.Hosting;

/// <summary>One orchestration instance: its history, status and inbox of completions, shared by the episode loop and the client calls.</summary>
internal sealed class OrchestrationInstance
{
    private readonly Lock _gate = new();
    private readonly List<HistoryEvent> _history = [];
    private readonly TimeProvider _time;
    private readonly DateTime _createdUtc;
    private DateTime _updatedUtc;
    private string _status = RuntimeStatus.Pending;

    public OrchestrationInstance(string id, string name, string? input, TimeProvider time, OrchestrationInstance? parent, int parentEventId, CancellationToken shutdown)
    {
        Id = id;
        Name = name;
        Input = input;
        Parent = parent;
        ParentEventId = parentEventId;
        _time = time;
        _createdUtc = _updatedUtc = time.GetUtcNow().UtcDateTime;
        ActivityToken = CancellationTokenSource.CreateLinkedTokenSource(shutdown, Terminate.Token).Token;
    }

    public string Id { get; }
    public string Name { get; }
    public string? Input { get; }
    public OrchestrationInstance? Parent { get; }
    public int ParentEventId { get; }
    public Channel<HistoryEvent> Inbox { get; } = Channel.CreateUnbounded<HistoryEvent>();
    public CancellationTokenSource Terminate { get; } = new();
    /// <summary>Canceled when the host shuts down or the instance is terminated: what ordinary activities run with.</summary>
    public CancellationToken ActivityToken { get; }
    public TaskCompletionSource Done { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
    public string? TerminateReason { get; set; }
    public string? CustomStatus { get; set; }
    public string? Output { get; set; }
    public string? Failure { get; set; }

    public IReadOnlyList<HistoryEvent> History
    {
        get
        {
            lock (_gate)
            {
                return [.. _history];
            }
        }
    }

    public int HistoryCount
    {
        get
        {
            lock (_gate)
            {
                return _history.Count;
            }
        }
    }

    public OrchestrationState State
    {
        get
        {
            lock (_gate)
            {
                return new OrchestrationState(Id, Name, _status, _createdUtc, _updatedUtc, CustomStatus, Output, Failure, Input);
            }
        }
    }

    public void Append(IEnumerable<HistoryEvent> events)
    {
        lock (_gate)
        {
            _history.AddRange(events);
        }
    }

    public void Update(string status)
    {
        lock (_gate)
        {
            _status = status;
            _updatedUtc = _time.GetUtcNow().UtcDateTime;
        }
    }
}
