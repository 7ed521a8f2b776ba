using System.Collections.Concurrent;
using System.Text.Json;
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
///
/// This file holds registration and the client calls; the episode loop and replay are in
/// InProcessOrchestrationHost.Episodes.cs, running activities and sub-orchestrations in ….Dispatch.cs,
/// the orchestrator's view in <see cref="ReplayContext"/>.
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Reliability", "CA1001", Justification = "The activity-slot SemaphoreSlim never creates a wait handle; the host lives as long as its process.")]
public sealed partial class InProcessOrchestrationHost : IRunOrchestrationClient
{
    private readonly Dictionary<string, (Func<string?, CancellationToken, Task<string>> Run, bool AfterShutdown)> _activities = [];
    private readonly Dictionary<string, Func<IRunOrchestrationContext, string?, Task<string?>>> _orchestrators = [];
    private readonly ConcurrentDictionary<string, OrchestrationInstance> _instances = new();
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
        var instance = new OrchestrationInstance(instanceId, orchestratorName, json, _time, null, -1, _shutdown);
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
}
