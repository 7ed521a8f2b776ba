using System.Collections.Concurrent;
using System.Text.Json;
using StorageBench.Results;

namespace StorageBench.Orchestration.Hosting;

/// <summary>
/// Runs orchestrations and activities inside this process.
///
/// SUBSTITUTION: this stands in for the Durable Task engine (Microsoft.DurableTask.* and
/// Microsoft.Azure.DurableTask.*), none of which the package mirror on this machine holds. It keeps
/// the contract the orchestrator relies on — activities by name, inputs and outputs crossing a JSON
/// boundary, bounded activity concurrency, unique instance ids, runtime and custom status — but it
/// has no durable history, no replay and no persistence: an instance dies with the process.
/// </summary>
public sealed class InProcessOrchestrationHost : IRunOrchestrationClient
{
    private readonly Dictionary<string, (Func<string?, CancellationToken, Task<string>> Run, bool AfterShutdown)> _activities = [];
    private readonly Dictionary<string, Func<IRunOrchestrationContext, string, Task<string>>> _orchestrators = [];
    private readonly ConcurrentDictionary<string, Instance> _instances = new();
    private readonly SemaphoreSlim _activitySlots;
    private readonly TimeProvider _time;
    private readonly CancellationToken _shutdown;

    /// <param name="maxConcurrentActivities">Like Durable Functions' maxConcurrentActivityFunctions: a slice waits for a slot.</param>
    public InProcessOrchestrationHost(int maxConcurrentActivities, TimeProvider time, CancellationToken shutdown = default)
    {
        _activitySlots = new SemaphoreSlim(maxConcurrentActivities);
        _time = time;
        _shutdown = shutdown;
    }

    /// <param name="runsAfterShutdown">True for cleanup and bookkeeping (delete targets, store the result): they still run,
    /// uncancelled, after shutdown is requested, so a canceled run leaves nothing behind.</param>
    public InProcessOrchestrationHost AddActivity<TIn, TOut>(string name, Func<TIn, CancellationToken, Task<TOut>> activity, bool runsAfterShutdown = false)
    {
        _activities.Add(name, (async (json, ct) =>
        {
            var input = json is null ? default! : JsonSerializer.Deserialize<TIn>(json, JsonDefaults.Options)!;
            return JsonSerializer.Serialize(await activity(input, ct).ConfigureAwait(false), JsonDefaults.Options);
        }, runsAfterShutdown));
        return this;
    }

    public InProcessOrchestrationHost AddOrchestrator<TIn, TOut>(string name, Func<IRunOrchestrationContext, TIn, Task<TOut>> orchestrator)
    {
        _orchestrators.Add(name, async (context, json) =>
            JsonSerializer.Serialize(await orchestrator(context, JsonSerializer.Deserialize<TIn>(json, JsonDefaults.Options)!).ConfigureAwait(false), JsonDefaults.Options));
        return this;
    }

    public Task<bool> TryScheduleAsync(string orchestratorName, string instanceId, object input, CancellationToken ct)
    {
        if (!_orchestrators.TryGetValue(orchestratorName, out var orchestrator))
        {
            throw new ArgumentException($"No orchestrator named {orchestratorName} is registered", nameof(orchestratorName));
        }
        var now = _time.GetUtcNow().UtcDateTime;
        var instance = new Instance(instanceId, orchestratorName, now);
        if (!_instances.TryAdd(instanceId, instance))
        {
            return Task.FromResult(false);
        }
        string json = JsonSerializer.Serialize(input, JsonDefaults.Options);
        instance.Completion = Task.Run(() => RunAsync(instance, orchestrator, json), CancellationToken.None);
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
        await instance.Completion!.WaitAsync(ct).ConfigureAwait(false);
        return instance.State;
    }

    private async Task RunAsync(Instance instance, Func<IRunOrchestrationContext, string, Task<string>> orchestrator, string input)
    {
        instance.Update(RuntimeStatus.Running, _time);
        try
        {
            instance.Output = await orchestrator(new Context(this, instance), input).ConfigureAwait(false);
            instance.Update(RuntimeStatus.Completed, _time);
        }
        catch (Exception ex)
        {
            instance.Failure = ex.Message;
            instance.Update(RuntimeStatus.Failed, _time);
        }
    }

    private async Task<TResult> CallActivityAsync<TResult>(string name, object? input)
    {
        if (!_activities.TryGetValue(name, out var activity))
        {
            throw new InvalidOperationException($"No activity named {name} is registered");
        }
        string? json = input is null ? null : JsonSerializer.Serialize(input, JsonDefaults.Options);
        var ct = activity.AfterShutdown ? CancellationToken.None : _shutdown;
        await _activitySlots.WaitAsync(ct).ConfigureAwait(false);
        try
        {
            // Off the orchestrator's thread, as a separate worker would run it.
            string output = await Task.Run(() => activity.Run(json, ct), ct).ConfigureAwait(false);
            return JsonSerializer.Deserialize<TResult>(output, JsonDefaults.Options)!;
        }
        catch (Exception ex) when (ex is not ActivityFailedException)
        {
            throw new ActivityFailedException(name, ex);
        }
        finally
        {
            _activitySlots.Release();
        }
    }

    private sealed class Context(InProcessOrchestrationHost host, Instance instance) : IRunOrchestrationContext
    {
        public string InstanceId => instance.Id;

        public DateTime CurrentUtcDateTime => host._time.GetUtcNow().UtcDateTime;

        public Task<TResult> CallActivityAsync<TResult>(string name, object? input) => host.CallActivityAsync<TResult>(name, input);

        public void SetCustomStatus(object? status)
        {
            instance.CustomStatus = status is null ? null : JsonSerializer.Serialize(status, JsonDefaults.Options);
            instance.Update(instance.Status, host._time);
        }
    }

    private sealed class Instance(string id, string name, DateTime createdUtc)
    {
        private readonly Lock _gate = new();
        private DateTime? _updatedUtc;

        public string Id => id;
        public string Status { get; private set; } = RuntimeStatus.Pending;
        public string? CustomStatus { get; set; }
        public string? Output { get; set; }
        public string? Failure { get; set; }
        public Task? Completion { get; set; }

        public OrchestrationState State
        {
            get
            {
                lock (_gate)
                {
                    return new OrchestrationState(id, name, Status, createdUtc, _updatedUtc ?? createdUtc, CustomStatus, Output, Failure);
                }
            }
        }

        public void Update(string status, TimeProvider time)
        {
            lock (_gate)
            {
                Status = status;
                _updatedUtc = time.GetUtcNow().UtcDateTime;
            }
        }
    }
}

/// <summary>An activity threw; like Durable Task's TaskFailedException, it names the activity and keeps the cause.</summary>
public sealed class ActivityFailedException(string activity, Exception inner)
    : Exception($"activity {activity} failed: {inner.GetType().Name}: {inner.Message}", inner)
{
    public string Activity { get; } = activity;
}
