using Microsoft.Azure.Functions.Worker;
using StorageBench.Engine.Cost;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration;

namespace StorageBench.Functions;

/// <summary>
/// One function per <see cref="ActivityNames"/> entry, bound as the local task hub binds them (src/StorageBench.TaskHub/BenchmarkTaskHub.Registry). The
/// invocation's token is passed through: on host shutdown an activity stops, and Durable runs it again elsewhere
/// (every activity is safe to run twice).
/// </summary>
public sealed class ActivityFunctions(BenchmarkActivities a)
{
    [Function(ActivityNames.CleanupLeftovers)]
    public Task<CleanupResult> CleanupLeftovers([ActivityTrigger] double olderThanHours, FunctionContext context) => a.CleanupLeftoversAsync(olderThanHours, context.CancellationToken);

    [Function(ActivityNames.DescribeEnvironment)]
    public Task<EnvironmentInfo> DescribeEnvironment([ActivityTrigger] object? none) => a.DescribeEnvironmentAsync();

    [Function(ActivityNames.PrepareTargets)]
    public Task<TargetRequests> PrepareTargets([ActivityTrigger] StepTargets input, FunctionContext context) => a.PrepareTargetsAsync(input, context.CancellationToken);

    [Function(ActivityNames.SeedSlice)]
    public Task<SeedResult> SeedSlice([ActivityTrigger] SliceOrder order, FunctionContext context) => a.SeedSliceAsync(order, context.CancellationToken);

    [Function(ActivityNames.RunSlice)]
    public Task<SliceOutcome> RunSlice([ActivityTrigger] SliceOrder order, FunctionContext context) => a.RunSliceAsync(order, context.CancellationToken);

    [Function(ActivityNames.ListWorkers)]
    public Task<WorkerSeen[]> ListWorkers([ActivityTrigger] object? none, FunctionContext context) => a.ListWorkersAsync(context.CancellationToken);

    [Function(ActivityNames.StopRun)]
    public Task<bool> StopRun([ActivityTrigger] string runId, FunctionContext context) => a.StopRunAsync(runId, context.CancellationToken);

    [Function(ActivityNames.Verify)]
    public Task<VerificationResult> Verify([ActivityTrigger] VerifyOrder order, FunctionContext context) => a.VerifyAsync(order, context.CancellationToken);

    [Function(ActivityNames.DeleteTargets)]
    public Task<TargetRequests> DeleteTargets([ActivityTrigger] StepTargets input, FunctionContext context) => a.DeleteTargetsAsync(input, context.CancellationToken);

    [Function(ActivityNames.StoreStep)]
    public Task<bool> StoreStep([ActivityTrigger] StoreStepInput input, FunctionContext context) => a.StoreStepAsync(input, context.CancellationToken);

    [Function(ActivityNames.EmitStepTelemetry)]
    public Task<bool> EmitStepTelemetry([ActivityTrigger] StepTelemetryInput input, FunctionContext context) => a.EmitStepTelemetryAsync(input, context.CancellationToken);

    [Function(ActivityNames.CheckRegression)]
    public Task<RegressionVerdict> CheckRegression([ActivityTrigger] RegressionInput input, FunctionContext context) => a.CheckRegressionAsync(input, context.CancellationToken);

    [Function(ActivityNames.StoreRun)]
    public Task<bool> StoreRun([ActivityTrigger] RunSummary run, FunctionContext context) => a.StoreRunAsync(run, context.CancellationToken);

    [Function(ActivityNames.EmitRunTelemetry)]
    public Task<bool> EmitRunTelemetry([ActivityTrigger] RunSummary run, FunctionContext context) => a.EmitRunTelemetryAsync(run, context.CancellationToken);
}
