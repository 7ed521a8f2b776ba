namespace StorageBench.Orchestration.Hosting;

/// <summary>
/// The one thread orchestrator code runs on during an episode. Continuations of its awaits queue
/// here and run in order; a continuation that arrives from another thread, or after the episode,
/// means the orchestrator awaited something that is not an activity or sub-orchestration.
/// </summary>
internal sealed class EpisodeSynchronizationContext(Action<string> lateViolation) : SynchronizationContext
{
    private const string AwaitedNonDurable =
        "the orchestrator awaited something other than an activity or sub-orchestration (I/O, a timer, Task.Run): Durable Task cannot replay that";
    private readonly Queue<(SendOrPostCallback Callback, object? State)> _work = new();
    private readonly int _thread = Environment.CurrentManagedThreadId;
    private bool _closed;

    public string? Violation { get; private set; }

    public override void Post(SendOrPostCallback d, object? state)
    {
        lock (_work)
        {
            if (_closed)
            {
                lateViolation(AwaitedNonDurable);
                return;
            }
            if (Environment.CurrentManagedThreadId != _thread)
            {
                Violation ??= AwaitedNonDurable;
                return;
            }
            _work.Enqueue((d, state));
        }
    }

    public override void Send(SendOrPostCallback d, object? state) => throw new NotSupportedException("orchestrator code cannot block");

    public override SynchronizationContext CreateCopy() => this;

    public void CheckThread(string call)
    {
        if (Current != this)
        {
            Violation ??= $"orchestrator code called {call} off the orchestrator's thread (after ConfigureAwait(false) or inside Task.Run)";
        }
    }

    public void Pump()
    {
        while (true)
        {
            (SendOrPostCallback Callback, object? State) next;
            lock (_work)
            {
                if (_work.Count == 0)
                {
                    return;
                }
                next = _work.Dequeue();
            }
            next.Callback(next.State);
        }
    }

    public void Close()
    {
        lock (_work)
        {
            _closed = true;
        }
    }
}
