using StorageBench.Engine.Cost;

namespace StorageBench.Orchestration;

/// <summary>
/// Every activity, declared once: its name, its input and output, and the code of <see cref="BenchmarkActivities"/> that runs
/// it. The local task hub binds the list as it is (BenchmarkTaskHub); the Function App's activity functions run each entry's
/// code under its name, and a test holds their types to the list's. Orchestrators call an entry, never a name.
/// </summary>
public static class ActivityList
{
    public static readonly TypedActivity<double, CleanupResult> CleanupLeftovers = new(ActivityNames.CleanupLeftovers, (a, hours, ct) => a.CleanupLeftoversAsync(hours, ct));
    public static readonly TypedActivity<object?, EnvironmentInfo> DescribeEnvironment = new(ActivityNames.DescribeEnvironment, (a, _, _) => a.DescribeEnvironmentAsync());
    public static readonly TypedActivity<StepTargets, TargetRequests> PrepareTargets = new(ActivityNames.PrepareTargets, (a, targets, ct) => a.PrepareTargetsAsync(targets, ct));
    public static readonly TypedActivity<SliceOrder, SeedResult> SeedSlice = new(ActivityNames.SeedSlice, (a, order, ct) => a.SeedSliceAsync(order, ct));
    public static readonly TypedActivity<SliceOrder, SliceOutcome> RunSlice = new(ActivityNames.RunSlice, (a, order, ct) => a.RunSliceAsync(order, ct));
    public static readonly TypedActivity<object?, WorkerSeen[]> ListWorkers = new(ActivityNames.ListWorkers, (a, _, ct) => a.ListWorkersAsync(ct));
    public static readonly TypedActivity<string, bool> StopRun = new(ActivityNames.StopRun, (a, runId, ct) => a.StopRunAsync(runId, ct));
    public static readonly TypedActivity<VerifyInput, VerifyOutcome> Verify = new(ActivityNames.Verify, (a, input, ct) => a.VerifyAsync(input, ct));
    public static readonly TypedActivity<StepTargets, TargetRequests> DeleteTargets = new(ActivityNames.DeleteTargets, (a, targets, ct) => a.DeleteTargetsAsync(targets, ct));
    public static readonly TypedActivity<StoreStepInput, bool> StoreStep = new(ActivityNames.StoreStep, (a, input, ct) => a.StoreStepAsync(input, ct));
    public static readonly TypedActivity<StepTelemetryInput, bool> EmitStepTelemetry = new(ActivityNames.EmitStepTelemetry, (a, input, ct) => a.EmitStepTelemetryAsync(input, ct));
    public static readonly TypedActivity<RegressionInput, RegressionVerdict> CheckRegression = new(ActivityNames.CheckRegression, (a, input, ct) => a.CheckRegressionAsync(input, ct));
    public static readonly TypedActivity<RunSummary, bool> StoreRun = new(ActivityNames.StoreRun, (a, run, ct) => a.StoreRunAsync(run, ct));
    public static readonly TypedActivity<RunSummary, bool> EmitRunTelemetry = new(ActivityNames.EmitRunTelemetry, (a, run, ct) => a.EmitRunTelemetryAsync(run, ct));

    /// <summary>The list a host binds (after the entries above: static fields are set in the order they are written).</summary>
    public static IReadOnlyList<IBindableActivity> All { get; } =
    [
        CleanupLeftovers, DescribeEnvironment, PrepareTargets, SeedSlice, RunSlice, ListWorkers, StopRun, Verify, DeleteTargets, StoreStep, EmitStepTelemetry,
        CheckRegression, StoreRun, EmitRunTelemetry,
    ];
}

/// <summary>
/// One activity: its name, its input and output types, and its code. The orchestrators call it through <see cref="CallAsync"/>,
/// so an input or a result of another type does not compile (durabletask-dotnet's one typed entry point per activity).
/// </summary>
public sealed class TypedActivity<TIn, TOut>(string name, Func<BenchmarkActivities, TIn, CancellationToken, Task<TOut>> run) : IBindableActivity
{
    public string Name => name;

    /// <summary>Its code, as a host runs it for one call.</summary>
    public Task<TOut> RunAsync(BenchmarkActivities activities, TIn input, CancellationToken ct) => run(activities, input, ct);

    /// <summary>Schedules it from an orchestrator and waits for its result (replay-safe: the context's own call).</summary>
    public Task<TOut> CallAsync(TaskOrchestrationContext context, TIn input) => context.CallActivityAsync<TOut>(name, input);

    public void BindTo(IActivityBinder binder) => binder.Bind(this);
}

/// <summary>An entry of <see cref="ActivityList"/> whose types a host learns by binding it.</summary>
public interface IBindableActivity
{
    string Name { get; }

    void BindTo(IActivityBinder binder);
}

/// <summary>What a host does with each activity of the list, with its types known.</summary>
public interface IActivityBinder
{
    void Bind<TIn, TOut>(TypedActivity<TIn, TOut> activity);
}
