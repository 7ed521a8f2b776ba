using Microsoft.Azure.Functions.Worker;
using StorageBench.Engine.Cost;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration;

namespace StorageBench.Functions;

/// <summary>
/// One function per <see cref="ActivityList"/> entry, under its name, running its code as the local task hub does
/// (src/StorageBench.TaskHub/BenchmarkTaskHub.Registry); ActivityBindingTests holds their types to the list's. The
/// invocation's token is passed through: on host shutdown an activity stops, and Durable runs it again elsewhere
/// (every activity is safe to run twice).
/// </summary>
public sealed class ActivityFunctions(BenchmarkActivities a)
{
    [Function(ActivityNames.CleanupLeftovers)]
    public Task<CleanupResult> CleanupLeftovers([ActivityTrigger] double olderThanHours, FunctionContext context) => ActivityList.CleanupLeftovers.RunAsync(a, olderThanHours, context.CancellationToken);

    [Function(ActivityNames.DescribeEnvironment)]
    public Task<EnvironmentInfo> DescribeEnvironment([ActivityTrigger] object? none, FunctionContext context) => ActivityList.DescribeEnvironment.RunAsync(a, none, context.CancellationToken);

    [Function(ActivityNames.PrepareTargets)]
    public Task<TargetRequests> PrepareTargets([ActivityTrigger] StepTargets input, FunctionContext context) => ActivityList.PrepareTargets.RunAsync(a, input, context.CancellationToken);

    [Function(ActivityNames.SeedSlice)]
    public Task<SeedResult> SeedSlice([ActivityTrigger] SliceOrder order, FunctionContext context) => ActivityList.SeedSlice.RunAsync(a, order, context.CancellationToken);

    [Function(ActivityNames.RunSlice)]
    public Task<SliceOutcome> RunSlice([ActivityTrigger] SliceOrder order, FunctionContext context) => ActivityList.RunSlice.RunAsync(a, order, context.CancellationToken);

    [Function(ActivityNames.ListWorkers)]
    public Task<WorkerSeen[]> ListWorkers([ActivityTrigger] object? none, FunctionContext context) => ActivityList.ListWorkers.RunAsync(a, none, context.CancellationToken);

    [Function(ActivityNames.StopRun)]
    public Task<bool> StopRun([ActivityTrigger] string runId, FunctionContext context) => ActivityList.StopRun.RunAsync(a, runId, context.CancellationToken);

    [Function(ActivityNames.Verify)]
    public Task<VerifyOutcome> Verify([ActivityTrigger] VerifyInput input, FunctionContext context) => ActivityList.Verify.RunAsync(a, input, context.CancellationToken);

    [Function(ActivityNames.DeleteTargets)]
    public Task<TargetRequests> DeleteTargets([ActivityTrigger] StepTargets input, FunctionContext context) => ActivityList.DeleteTargets.RunAsync(a, input, context.CancellationToken);

    [Function(ActivityNames.StoreStep)]
    public Task<bool> StoreStep([ActivityTrigger] StoreStepInput input, FunctionContext context) => ActivityList.StoreStep.RunAsync(a, input, context.CancellationToken);

    [Function(ActivityNames.EmitStepTelemetry)]
    public Task<bool> EmitStepTelemetry([ActivityTrigger] StepTelemetryInput input, FunctionContext context) => ActivityList.EmitStepTelemetry.RunAsync(a, input, context.CancellationToken);

    [Function(ActivityNames.CheckRegression)]
    public Task<RegressionVerdict> CheckRegression([ActivityTrigger] RegressionInput input, FunctionContext context) => ActivityList.CheckRegression.RunAsync(a, input, context.CancellationToken);

    [Function(ActivityNames.StoreRun)]
    public Task<bool> StoreRun([ActivityTrigger] RunSummary run, FunctionContext context) => ActivityList.StoreRun.RunAsync(a, run, context.CancellationToken);

    [Function(ActivityNames.EmitRunTelemetry)]
    public Task<bool> EmitRunTelemetry([ActivityTrigger] RunSummary run, FunctionContext context) => ActivityList.EmitRunTelemetry.RunAsync(a, run, context.CancellationToken);
}
