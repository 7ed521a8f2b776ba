using System.Collections.Concurrent;
using System.Text.Json;
using System.Threading.Channels;
using StorageBench.Engine;

namespace StorageBench.Orchestration.Hosting;

/// <summary>
/// Runs orchestrations and activities inside this process, replaying as Durable Task does.
///
/// SUBSTITUTION: this stands in for the Durable Task engine (Microsoft.DurableTask.*,
/// Microsoft.Azure.DurableTask.*), none of which the package mirror on this machine holds; the Function
/// App in functions/ runs the same orchestrators on the real engine. Like Durable Task it keeps a history
/// per instance and, after every batch of completions, runs the orchestrator again from the start
/// against that history: past calls are answered from history, the clock reads the episode's recorded
/// time, and a replay that asks for a different activity, sub-orchestration or input than history holds
/// — or awaits anything that is not one — fails the instance. Activities may be run more than once
/// (<see cref="ExecutionsOf"/>), and every payload is held to <see cref="PayloadBudget"/>. Unlike
/// Durable Task it keeps history in memory only: an instance ends with the process.
/// </summary>
public sealed class InProcessOrchestrationHost : IRunOrchestrationClient
{
    private readonly Dictionary<string, (Func<string?, CancellationToken, Task<string>> Run, bool AfterShutdown)> _activities = [];
    private readonly Dictionary<string, Func<IRunOrchestrationContext, string?, Task<string?>>> _orchestrators = [];
    private readonly ConcurrentDictionary<string, Instance> _instances = new();
    private readonly SemaphoreSlim _activitySlots;
    private readonly TimeProvider _time;
    private readonly CancellationToken _shutdown;
    private readonly Microsoft.Extensions.Logging.ILogger _logger;

    /// <param name="maxConcurrentActivities">Like Durable Functions' maxConcurrentActivityFunctions: a slice waits for a slot.</param>
    /// <param name="logger">Where an activity's exception is logged, as the Functions host logs a failed activity.</param>
    public InProcessOrchestrationHost(int maxConcurrentActivities, TimeProvider time, CancellationToken shutdown = default, Microsoft.Extensions.Logging.ILogger? logger = null)
    {
        _logger = logger ?? Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance;
        _activitySlots = new SemaphoreSlim(maxConcurrentActivities);
        _time = time;
        _shutdown = shutdown;
    }

    /// <summary>
    /// How many times an activity runs for one call (default once). Durable Task runs activities at
    /// least once; a test sets 2 to check an activity that ran twice does not count twice. The
    /// orchestrator receives the last execution's result.
    /// </summary>
    public Func<string, int>? ExecutionsOf { get; set; }

    /// <summary>Called with every payload the host serializes (tests measure the largest).</summary>
    public Action<PayloadRecord>? PayloadObserver { get; set; }

    /// <param name="runsAfterShutdown">True for cleanup and bookkeeping (delete targets, store the result): they still run,
    /// uncancelled, after shutdown is requested, so a canceled run leaves nothing behind.</param>
    public InProcessOrchestrationHost AddActivity<TIn, TOut>(string name, Func<TIn, CancellationToken, Task<TOut>> activity, bool runsAfterShutdown = false)
    {
        _activities.Add(name, (async (json, ct) =>
        {
            var input = json is null ? default! : JsonSerializer.Deserialize<TIn>(json, JsonDefaults.Compact)!;
            return JsonSerializer.Serialize(await activity(input, ct).ConfigureAwait(false), JsonDefaults.Compact);
        }, runsAfterShutdown));
        return this;
    }

    /// <summary>Swaps the code behind an activity name (tests: a slice host that crashes).</summary>
    public InProcessOrchestrationHost ReplaceActivity<TIn, TOut>(string name, Func<TIn, CancellationToken, Task<TOut>> activity)
    {
        bool afterShutdown = _activities.Remove(name, out var old) && old.AfterShutdown;
        return AddActivity(name, activity, afterShutdown);
    }

    public InProcessOrchestrationHost AddOrchestrator<TIn, TOut>(string name, Func<IRunOrchestrationContext, TIn, Task<TOut>> orchestrator)
    {
        // No ConfigureAwait(false): the continuation must stay on the episode's synchronization context.
        _orchestrators.Add(name, async (context, json) =>
            JsonSerializer.Serialize(await orchestrator(context, JsonSerializer.Deserialize<TIn>(json ?? "null", JsonDefaults.Compact)!), JsonDefaults.Compact));
        return this;
    }

    public Task<bool> TryScheduleAsync(string orchestratorName, string instanceId, object input, CancellationToken ct)
    {
        if (!_orchestrators.ContainsKey(orchestratorName))
        {
            throw new ArgumentException($"No orchestrator named {orchestratorName} is registered", nameof(orchestratorName));
        }
        string json = JsonSerializer.Serialize(input, JsonDefaults.Compact);
        Enforce(new PayloadRecord("orchestration input", orchestratorName, PayloadBudget.SizeOf(json)));
        var instance = new Instance(instanceId, orchestratorName, json, _time, null, -1, _shutdown);
        if (!_instances.TryAdd(instanceId, instance))
        {
            return Task.FromResult(false);
        }
        Start(instance);
        return Task.FromResult(true);
    }

    public Task<OrchestrationState?> GetStateAsync(string instanceId, CancellationToken ct) =>
        Task.FromResult(_instances.TryGetValue(instanceId, out var i) ? i.State : null);

    public async Task<OrchestrationState> WaitForCompletionAsync(string instanceId, CancellationToken ct)
    {
        if (!_instances.TryGetValue(instanceId, out var instance))
        {
            throw new ArgumentException($"No instance {instanceId}", nameof(instanceId));
        }
        await instance.Done.Task.WaitAsync(ct).ConfigureAwait(false);
        return instance.State;
    }

    /// <summary>Ends the instance and the sub-orchestrations it is running; their running activities are canceled.</summary>
    public Task TerminateAsync(string instanceId, string reason, CancellationToken ct)
    {
        if (_instances.TryGetValue(instanceId, out var instance) && !instance.Terminate.IsCancellationRequested)
        {
            // The parent first, so a child's termination does not reach it as a failure to handle.
            instance.TerminateReason = reason;
            instance.Terminate.Cancel();
            foreach (var child in _instances.Values.Where(c => c.Parent == instance))
            {
                TerminateAsync(child.Id, reason, ct);
            }
        }
        return Task.CompletedTask;
    }

    /// <summary>The instance's history so far (a copy), for tests that check what replay sees.</summary>
    public IReadOnlyList<HistoryEvent> GetHistory(string instanceId) =>
        _instances.TryGetValue(instanceId, out var i) ? i.History : throw new ArgumentException($"No instance {instanceId}", nameof(instanceId));

    private DateTime Now => _time.GetUtcNow().UtcDateTime;

    private void Start(Instance instance) => _ = Task.Run(() => RunInstanceAsync(instance), CancellationToken.None);

    /// <summary>Episode after episode: replay the whole history, record and dispatch what is new, wait for completions.</summary>
    private async Task RunInstanceAsync(Instance instance)
    {
        var orchestrator = _orchestrators[instance.Name];
        instance.Update(RuntimeStatus.Running);
        instance.Append([new OrchestratorStarted(Now), new ExecutionStarted(instance.Name, instance.Input)]);
        int replayed = 0;
        try
        {
            while (true)
            {
                var episode = Replay(instance, orchestrator, replayed);
                instance.CustomStatus = episode.CustomStatus;
                if (episode.Done)
                {
                    Complete(instance, episode.Output, episode.Failure is { } f ? $"{FailureDetails.ShortName(f.ErrorType)}: {f.ErrorMessage}" : null, details: episode.Failure);
                    return;
                }
                foreach (var action in episode.NewActions)
                {
                    instance.Append([action.Kind == ActionKind.Activity
                        ? new TaskScheduled(action.Id, action.Name, action.Input)
                        : new SubOrchestrationCreated(action.Id, action.Name, action.InstanceId!, action.Input)]);
                    Dispatch(instance, action);
                }
                replayed = instance.HistoryCount;
                var batch = new List<HistoryEvent> { await instance.Inbox.Reader.ReadAsync(instance.Terminate.Token).ConfigureAwait(false) };
                while (instance.Inbox.Reader.TryRead(out var more))
                {
                    batch.Add(more);
                }
                instance.Terminate.Token.ThrowIfCancellationRequested();
                if (batch.OfType<LateViolation>().FirstOrDefault() is { } violation)
                {
                    throw new NonDeterministicOrchestrationException(violation.Message);
                }
                instance.Append([new OrchestratorStarted(Now), .. batch]);
                instance.Update(RuntimeStatus.Running);
            }
        }
        catch (OperationCanceledException) when (instance.Terminate.IsCancellationRequested)
        {
            Complete(instance, JsonSerializer.Serialize(instance.TerminateReason, JsonDefaults.Compact), null, RuntimeStatus.Terminated);
        }
        catch (Exception ex)
        {
            Complete(instance, null, $"{ex.GetType().Name}: {ex.Message}", details: FailureDetails.FromException(ex));
        }
    }

    /// <summary>
    /// Runs the orchestrator from the start on a single-threaded context, feeding it the history in
    /// order, as Durable Task's replay does; events before <paramref name="replayed"/> are replay.
    /// </summary>
    private Episode Replay(Instance instance, Func<IRunOrchestrationContext, string?, Task<string?>> orchestrator, int replayed)
    {
        var history = instance.History;
        var sync = new EpisodeSynchronizationContext(message => instance.Inbox.Writer.TryWrite(new LateViolation(message)));
        var context = new ReplayContext(instance.Id, sync);
        var previous = SynchronizationContext.Current;
        SynchronizationContext.SetSynchronizationContext(sync);
        Task<string?>? run = null;
        try
        {
            for (int i = 0; i < history.Count; i++)
            {
                context.IsReplaying = i < replayed;
                switch (history[i])
                {
                    case OrchestratorStarted e:
                        context.CurrentUtcDateTime = e.Timestamp;
                        break;
                    case ExecutionStarted e:
                        run = orchestrator(context, e.Input);
                        break;
                    case TaskScheduled e:
                        context.Match(e.EventId, ActionKind.Activity, e.Name, null, e.Input);
                        break;
                    case SubOrchestrationCreated e:
                        context.Match(e.EventId, ActionKind.SubOrchestration, e.Name, e.InstanceId, e.Input);
                        break;
                    case TaskCompleted e:
                        context.Complete(e.ScheduledId, e.Result);
                        break;
                    case SubOrchestrationCompleted e:
                        context.Complete(e.ScheduledId, e.Result);
                        break;
                    case TaskFailed e:
                        context.Fail(e.ScheduledId, e.Failure);
                        break;
                    case SubOrchestrationFailed e:
                        context.Fail(e.ScheduledId, e.Failure);
                        break;
                }
                sync.Pump();
                if (sync.Violation is { } violation)
                {
                    throw new NonDeterministicOrchestrationException(violation);
                }
            }
        }
        finally
        {
            sync.Close();
            SynchronizationContext.SetSynchronizationContext(previous);
        }
        if (run is null)
        {
            throw new InvalidOperationException($"instance {instance.Id} has no ExecutionStarted event");
        }
        if (run.IsCompleted)
        {
            return run.IsCompletedSuccessfully
                ? new Episode(true, run.Result, null, [], context.CustomStatus)
                : new Episode(true, null, FailureDetails.FromException(run.Exception!.InnerException!), [], context.CustomStatus);
        }
        return new Episode(false, null, null, context.NewActions(), context.CustomStatus);
    }

    private void Dispatch(Instance instance, PendingAction action)
    {
        if (action.Kind == ActionKind.Activity)
        {
            _ = Task.Run(() => RunActivityAsync(instance, action), CancellationToken.None);
            return;
        }
        string? refusal = !_orchestrators.ContainsKey(action.Name) ? $"No orchestrator named {action.Name} is registered"
            : Exceeds(new PayloadRecord("sub-orchestration input", action.Name, PayloadBudget.SizeOf(action.Input)));
        var child = new Instance(action.InstanceId!, action.Name, action.Input, _time, instance, action.Id, _shutdown);
        if (refusal is null && !_instances.TryAdd(child.Id, child))
        {
            refusal = $"an orchestration instance with id {child.Id} already exists";
        }
        if (refusal is not null)
        {
            instance.Inbox.Writer.TryWrite(new SubOrchestrationFailed(action.Id, new FailureDetails(typeof(InvalidOperationException).FullName!, refusal, null, null)));
            return;
        }
        Start(child);
    }

    private async Task RunActivityAsync(Instance instance, PendingAction action)
    {
        HistoryEvent result;
        try
        {
            if (!_activities.TryGetValue(action.Name, out var activity))
            {
                throw new InvalidOperationException($"No activity named {action.Name} is registered");
            }
            Enforce(new PayloadRecord("activity input", action.Name, PayloadBudget.SizeOf(action.Input)));
            var ct = activity.AfterShutdown ? instance.Terminate.Token : instance.ActivityToken;
            await _activitySlots.WaitAsync(ct).ConfigureAwait(false);
            try
            {
                string output = "null";
                for (int run = 0, runs = Math.Max(1, ExecutionsOf?.Invoke(action.Name) ?? 1); run < runs; run++)
                {
                    // Off the orchestrator's thread, as a separate worker would run it.
                    output = await Task.Run(() => activity.Run(action.Input, ct), ct).ConfigureAwait(false);
                }
                Enforce(new PayloadRecord("activity output", action.Name, PayloadBudget.SizeOf(output)));
                result = new TaskCompleted(action.Id, output);
            }
            finally
            {
                _activitySlots.Release();
            }
        }
        catch (Exception ex)
        {
            // Type, message, stack and inner failure: what Durable Task keeps of an activity's exception.
            result = new TaskFailed(action.Id, FailureDetails.FromException(ex));
            _logger.ActivityFailed(ex, action.Name, instance.Id);
        }
        instance.Inbox.Writer.TryWrite(result);
    }

    /// <param name="details">The orchestrator's own exception, when it threw: the parent receives its type, message, stack and inner failure.</param>
    private void Complete(Instance instance, string? output, string? failure, string status = RuntimeStatus.Completed, FailureDetails? details = null)
    {
        if (failure is null && status == RuntimeStatus.Completed
            && Exceeds(new PayloadRecord("orchestration output", instance.Name, PayloadBudget.SizeOf(output))) is { } tooBig)
        {
            (output, failure) = (null, tooBig);
        }
        instance.Append([new ExecutionCompleted(output, failure)]);
        instance.Output = output;
        instance.Failure = failure;
        instance.Update(failure is not null ? RuntimeStatus.Failed : status);
        instance.Done.TrySetResult();
        if (instance.Parent is { } parent)
        {
            parent.Inbox.Writer.TryWrite(failure is null && status == RuntimeStatus.Completed
                ? new SubOrchestrationCompleted(instance.ParentEventId, output ?? "null")
                : new SubOrchestrationFailed(instance.ParentEventId, details ?? new FailureDetails(typeof(Exception).FullName!, failure ?? $"{status}: {instance.TerminateReason}", null, null)));
        }
    }

    private void Enforce(PayloadRecord payload)
    {
        if (Exceeds(payload) is not null)
        {
            throw new PayloadBudgetExceededException(payload);
        }
    }

    /// <summary>Reports the payload to the observer; returns why it is refused, or null within budget.</summary>
    private string? Exceeds(PayloadRecord payload)
    {
        PayloadObserver?.Invoke(payload);
        return payload.Bytes > PayloadBudget.MaxBytes ? new PayloadBudgetExceededException(payload).Message : null;
    }

    private enum ActionKind
    {
        Activity,
        SubOrchestration,
    }

    private sealed record PendingAction(int Id, ActionKind Kind, string Name, string? InstanceId, string? Input, Action<string> OnCompleted, Action<FailureDetails> OnFailed);

    private sealed record Episode(bool Done, string? Output, FailureDetails? Failure, IReadOnlyList<PendingAction> NewActions, string? CustomStatus);

    /// <summary>Not history: a continuation of orchestrator code arrived after its episode (it awaited a non-durable task).</summary>
    private sealed record LateViolation(string Message) : HistoryEvent;

    /// <summary>The orchestrator's view during one episode: calls get sequence numbers and stay pending until history answers them.</summary>
    private sealed class ReplayContext(string instanceId, EpisodeSynchronizationContext sync) : IRunOrchestrationContext
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

    /// <summary>
    /// The one thread orchestrator code runs on during an episode. Continuations of its awaits queue
    /// here and run in order; a continuation that arrives from another thread, or after the episode,
    /// means the orchestrator awaited something that is not an activity or sub-orchestration.
    /// </summary>
    private sealed class EpisodeSynchronizationContext(Action<string> lateViolation) : SynchronizationContext
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

    private sealed class Instance
    {
        private readonly Lock _gate = new();
        private readonly List<HistoryEvent> _history = [];
        private readonly TimeProvider _time;
        private readonly DateTime _createdUtc;
        private DateTime _updatedUtc;
        private string _status = RuntimeStatus.Pending;

        public Instance(string id, string name, string? input, TimeProvider time, Instance? parent, int parentEventId, CancellationToken shutdown)
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
        public Instance? Parent { get; }
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
}
