using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads;
using StorageBench.Results;

namespace StorageBench.Orchestration.Hosting;

/// <summary>Wires the orchestrator and every activity into an in-process host (the local CLI and the tests use this).</summary>
public static class BenchmarkHost
{
    public static InProcessOrchestrationHost Create(StorageTarget target, ResultsTableStore results, TimeProvider time,
        int maxConcurrentActivities = 0, CancellationToken shutdown = default, TelemetryEmitter? telemetry = null) =>
        Create([target], results, time, maxConcurrentActivities, shutdown, telemetry);

    /// <summary>Slices are spread over <paramref name="targets"/> (slice i writes to account i mod count).</summary>
    public static InProcessOrchestrationHost Create(IReadOnlyList<StorageTarget> targets, ResultsTableStore results, TimeProvider time,
        int maxConcurrentActivities = 0, CancellationToken shutdown = default, TelemetryEmitter? telemetry = null)
    {
        var a = new BenchmarkActivities(targets, results, time, telemetry);
        // By default every slice of a workload can run at once (plus the control activities), so the
        // synchronized start holds; a Function App bounds this per instance in host.json instead.
        var host = new InProcessOrchestrationHost(maxConcurrentActivities > 0 ? maxConcurrentActivities : ServiceLimits.MaxSlices + 8, time, shutdown);
        return host
            .AddOrchestrator<RunRequest, RunSummary>(BenchmarkOrchestrator.Name, BenchmarkOrchestrator.RunAsync)
            .AddActivity<object?, EnvironmentInfo>(ActivityNames.DescribeEnvironment, (_, _) => a.DescribeEnvironmentAsync(), runsAfterShutdown: true)
            .AddActivity<TargetsInput, bool>(ActivityNames.PrepareTargets, a.PrepareTargetsAsync)
            .AddActivity<TableSlicePlan, Engine.Measurement.SliceResult>(ActivityNames.RunTableSlice, a.RunTableSliceAsync)
            .AddActivity<BlobSlicePlan, Engine.Measurement.SliceResult>(ActivityNames.RunBlobSlice, a.RunBlobSliceAsync)
            .AddActivity<VerifyTableInput, VerificationResult>(ActivityNames.VerifyTable, a.VerifyTableAsync)
            .AddActivity<VerifyBlobsInput, VerificationResult>(ActivityNames.VerifyBlobs, a.VerifyBlobsAsync)
            .AddActivity<StoreResultInput, bool>(ActivityNames.StoreResult, a.StoreResultAsync, runsAfterShutdown: true)
            .AddActivity<RunSummary, RegressionVerdict>(ActivityNames.CheckRegression, a.CheckRegressionAsync)
            .AddActivity<RunSummary, bool>(ActivityNames.EmitTelemetry, a.EmitTelemetryAsync, runsAfterShutdown: true)
            .AddActivity<TargetsInput, bool>(ActivityNames.DeleteTargets, a.DeleteTargetsAsync, runsAfterShutdown: true);
    }
}
