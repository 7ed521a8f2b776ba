using Microsoft.Extensions.Logging;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Telemetry;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration;

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
        .AddActivity<SliceOrder, SliceResult>(ActivityNames.RunSlice, a.RunSliceAsync)
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
    public static Task<LocalTaskHub> StartAsync(StorageTarget hubStore, IReadOnlyList<StorageTarget> targets, ResultsTableStore results, TaskHubSettings settings,
        TelemetryEmitter? telemetry = null, ILoggerFactory? loggers = null, Action<TaskRegistry>? configure = null, CancellationToken ct = default)
    {
        var registry = Registry(new BenchmarkActivities(targets, results, TimeProvider.System, telemetry, loggers: loggers), loggers?.CreateLogger<TaskRegistry>());
        configure?.Invoke(registry);
        return LocalTaskHub.StartAsync(hubStore, settings, registry, ct);
    }
}
