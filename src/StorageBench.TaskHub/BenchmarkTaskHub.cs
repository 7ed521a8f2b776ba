using Microsoft.Extensions.Logging;
using StorageBench.Engine.Cost;
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
    /// <summary>Binds every orchestrator and activity name to its code, as the Function App's functions bind them.</summary>
    public static TaskRegistry Registry(BenchmarkActivities a, ILogger? logger = null) => new TaskRegistry(logger)
        .AddOrchestrator<RunRequest, RunSummary>(BenchmarkOrchestrator.Name, BenchmarkOrchestrator.RunAsync)
        .AddOrchestrator<StepInput, StepResult>(StepOrchestrator.Name, StepOrchestrator.RunAsync)
        .AddActivity<double, CleanupResult>(ActivityNames.CleanupLeftovers, a.CleanupLeftoversAsync)
        .AddActivity<object?, EnvironmentInfo>(ActivityNames.DescribeEnvironment, (_, _) => a.DescribeEnvironmentAsync())
        .AddActivity<StepTargets, TargetRequests>(ActivityNames.PrepareTargets, a.PrepareTargetsAsync)
        .AddActivity<SliceOrder, SeedResult>(ActivityNames.SeedSlice, a.SeedSliceAsync)
        .AddActivity<SliceOrder, SliceOutcome>(ActivityNames.RunSlice, a.RunSliceAsync)
        .AddActivity<object?, WorkerSeen[]>(ActivityNames.ListWorkers, (_, ct) => a.ListWorkersAsync(ct))
        .AddActivity<string, bool>(ActivityNames.StopRun, a.StopRunAsync)
        .AddActivity<VerifyOrder, VerificationResult>(ActivityNames.Verify, a.VerifyAsync)
        .AddActivity<StepTargets, TargetRequests>(ActivityNames.DeleteTargets, a.DeleteTargetsAsync)
        .AddActivity<StoreStepInput, bool>(ActivityNames.StoreStep, a.StoreStepAsync)
        .AddActivity<StepTelemetryInput, bool>(ActivityNames.EmitStepTelemetry, a.EmitStepTelemetryAsync)
        .AddActivity<RegressionInput, RegressionVerdict>(ActivityNames.CheckRegression, a.CheckRegressionAsync)
        .AddActivity<RunSummary, bool>(ActivityNames.StoreRun, a.StoreRunAsync)
        .AddActivity<RunSummary, bool>(ActivityNames.EmitRunTelemetry, a.EmitRunTelemetryAsync);

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
        var roster = new WorkerRoster(results, settings.HubName, settings.WorkerName, settings.MaxConcurrentActivities, TimeProvider.System, logger);
        var activities = new BenchmarkActivities(targets, results, TimeProvider.System, telemetry, loggers: loggers, seats: new WorkerSeats(settings.WorkerName), roster: roster);
        var registry = Registry(activities, loggers?.CreateLogger<TaskRegistry>());
        configure?.Invoke(registry);
        await roster.StartAsync(ct).ConfigureAwait(false);
        try
        {
            var hub = await LocalTaskHub.StartAsync(hubStore, settings, registry, ct).ConfigureAwait(false);
            hub.DisposeWith(roster);
            return hub;
        }
        catch
        {
            await roster.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }
}
