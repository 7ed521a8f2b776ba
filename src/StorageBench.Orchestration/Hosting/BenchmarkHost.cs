using Microsoft.Extensions.Logging;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Telemetry;
using StorageBench.Engine.Targets;

namespace StorageBench.Orchestration.Hosting;

/// <summary>Wires both orchestrators and every activity into an in-process host (the local CLI and the tests use this).</summary>
public static class BenchmarkHost
{
    public static InProcessOrchestrationHost Create(StorageTarget target, ResultsTableStore results, TimeProvider time,
        int maxConcurrentActivities = 0, CancellationToken shutdown = default, TelemetryEmitter? telemetry = null, ILoggerFactory? loggers = null) =>
        Create([target], results, time, maxConcurrentActivities, shutdown, telemetry, loggers);

    /// <summary>Slices are spread over <paramref name="targets"/> (slice i writes to account i mod count).</summary>
    /// <param name="loggers">Where the host and the activities log (docs/faults.md, "Logs"); none when not given.</param>
    public static InProcessOrchestrationHost Create(IReadOnlyList<StorageTarget> targets, ResultsTableStore results, TimeProvider time,
        int maxConcurrentActivities = 0, CancellationToken shutdown = default, TelemetryEmitter? telemetry = null, ILoggerFactory? loggers = null)
    {
        var a = new BenchmarkActivities(targets, results, time, telemetry, loggers: loggers);
        // By default every slice of a workload can run at once (plus the control activities), so the
        // synchronized start holds; a Function App bounds this per instance in host.json instead.
        var host = new InProcessOrchestrationHost(maxConcurrentActivities > 0 ? maxConcurrentActivities : ServiceLimits.MaxSlices + 8, time, shutdown,
            loggers?.CreateLogger<InProcessOrchestrationHost>());
        return Register(host, a);
    }

    /// <summary>
    /// Binds every orchestrator and activity name to its code. Bookkeeping and cleanup (verify, delete,
    /// store, telemetry) run after shutdown too, so a canceled run is verified, leaves nothing behind,
    /// and is stored with the figures it has.
    /// </summary>
    public static InProcessOrchestrationHost Register(InProcessOrchestrationHost host, BenchmarkActivities a) => host
        .AddOrchestrator<RunRequest, RunSummary>(BenchmarkOrchestrator.Name, BenchmarkOrchestrator.RunAsync)
        .AddOrchestrator<StepInput, StepResult>(StepOrchestrator.Name, StepOrchestrator.RunAsync)
        .AddActivity<double, CleanupResult>(ActivityNames.CleanupLeftovers, a.CleanupLeftoversAsync)
        .AddActivity<object?, EnvironmentInfo>(ActivityNames.DescribeEnvironment, (_, _) => a.DescribeEnvironmentAsync(), runsAfterShutdown: true)
        .AddActivity<StepTargets, TargetRequests>(ActivityNames.PrepareTargets, a.PrepareTargetsAsync)
        .AddActivity<TableSlicePlan, SliceResult>(ActivityNames.RunTableSlice, a.RunTableSliceAsync)
        .AddActivity<BlobSlicePlan, SliceResult>(ActivityNames.RunBlobSlice, a.RunBlobSliceAsync)
        .AddActivity<VerifyTableInput, VerificationResult>(ActivityNames.VerifyTable, a.VerifyTableAsync, runsAfterShutdown: true)
        .AddActivity<VerifyBlobsInput, VerificationResult>(ActivityNames.VerifyBlobs, a.VerifyBlobsAsync, runsAfterShutdown: true)
        .AddActivity<StepTargets, TargetRequests>(ActivityNames.DeleteTargets, a.DeleteTargetsAsync, runsAfterShutdown: true)
        .AddActivity<StoreStepInput, bool>(ActivityNames.StoreStep, a.StoreStepAsync, runsAfterShutdown: true)
        .AddActivity<StepTelemetryInput, bool>(ActivityNames.EmitStepTelemetry, a.EmitStepTelemetryAsync, runsAfterShutdown: true)
        .AddActivity<RegressionInput, RegressionVerdict>(ActivityNames.CheckRegression, a.CheckRegressionAsync)
        .AddActivity<RunSummary, bool>(ActivityNames.StoreRun, a.StoreRunAsync, runsAfterShutdown: true)
        .AddActivity<RunSummary, bool>(ActivityNames.EmitRunTelemetry, a.EmitRunTelemetryAsync, runsAfterShutdown: true);
}
