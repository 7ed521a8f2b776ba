using Microsoft.Extensions.Logging;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Telemetry;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration;
using StorageBench.Orchestration.Activities;

namespace StorageBench.TaskHub;

/// <summary>The benchmark's orchestrators and activities on a local task hub: what `storagebench run`, `serve`, `ab` and the tests run.</summary>
public static class BenchmarkTaskHub
{
    /// <summary>Binds the orchestrators and every activity of <see cref="ActivityList"/> to its code, as the Function App's functions bind them.</summary>
    public static TaskRegistry Registry(BenchmarkActivities a, ILogger? logger = null)
    {
        var registry = new TaskRegistry(logger)
            .AddOrchestrator<RunRequest, RunSummary>(BenchmarkOrchestrator.Name, BenchmarkOrchestrator.RunAsync)
            .AddOrchestrator<StepInput, StepResult>(StepOrchestrator.Name, StepOrchestrator.RunAsync)
            .AddOrchestrator<SegmentedSliceInput, SliceOutcome>(SegmentedSlice.Name, SegmentedSlice.RunAsync)
            .AddOrchestrator<SliceOrder, SliceOutcome>(HandedBackSlice.Name, HandedBackSlice.RunAsync);
        var binder = new RegistryBinder(registry, a);
        foreach (var activity in ActivityList.All)
        {
            activity.BindTo(binder);
        }
        return registry;
    }

    /// <summary>Each activity under its name, running its code on these activities.</summary>
    private sealed class RegistryBinder(TaskRegistry registry, BenchmarkActivities a) : IActivityBinder
    {
        public void Bind<TIn, TOut>(TypedActivity<TIn, TOut> activity) => registry.AddActivity<TIn, TOut>(activity.Name, (input, ct) => activity.RunAsync(a, input, ct));
    }

    /// <summary>
    /// A worker for the benchmark on the hub in <paramref name="hubStore"/>, the control plane's account (as a Function App's
    /// hub lives in its host storage, never in the account under test); slices write to <paramref name="targets"/> (slice i
    /// to account i mod count).
    /// </summary>
    /// <param name="configure">Changes the registry before the worker starts (tests: an activity that crashes or runs twice).</param>
    /// <remarks>The worker is on the hub's roster (<see cref="WorkerRoster"/>) before it takes work, and off it when disposed.</remarks>
    public static async Task<LocalTaskHub> StartAsync(StorageTarget hubStore, IReadOnlyList<StorageTarget> targets, ResultsTableStore results, TaskHubSettings settings,
        TelemetryEmitter? telemetry = null, ILoggerFactory? loggers = null, Action<TaskRegistry>? configure = null, CancellationToken ct = default)
    {
        var logger = (loggers ?? Microsoft.Extensions.Logging.Abstractions.NullLoggerFactory.Instance).CreateLogger<WorkerRoster>();
        var roster = new WorkerRoster(results, settings.HubName, settings.WorkerName, settings.MaxConcurrentActivities, settings.PartitionCount, TimeProvider.System, logger);
        var activities = new BenchmarkActivities(targets, results, TimeProvider.System, telemetry, loggers: loggers, seats: new WorkerSeats(settings.WorkerName), roster: roster);
        var registry = Registry(activities, loggers?.CreateLogger<TaskRegistry>());
        configure?.Invoke(registry);
        // On the roster while the hub's queues and tables are made: a short run waited for each in turn.
        var onRoster = roster.StartAsync(ct);
        try
        {
            var hub = await LocalTaskHub.StartAsync(hubStore, settings, registry, ct, onRoster).ConfigureAwait(false);
            hub.DisposeWith(roster);
            return hub;
        }
        catch
        {
            await Task.WhenAny(onRoster).ConfigureAwait(false);
            await roster.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }
}
