using System.Runtime.InteropServices;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.StorageCalls;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Telemetry;
using StorageBench.Orchestration.Activities;

namespace StorageBench.Orchestration;

/// <summary>
/// The activities: each one a thin call into the engine or the results store. A host (the local task hub's
/// <c>BenchmarkTaskHub</c>, or the Function App) binds each method to its <see cref="ActivityNames"/> entry. Every one is
/// safe to run more than once, as Durable Task may run an activity again.
/// </summary>
/// <param name="targets">The target accounts; a slice's plan names the one it writes to.</param>
/// <param name="telemetry">Null when no Application Insights connection is configured: telemetry is then skipped.</param>
/// <param name="policy">Deadlines of the storage calls outside the measured path (default: the results store's).</param>
/// <param name="loggers">Where failures the run survives are logged (docs/faults.md, "Logs"); none when not given.</param>
public sealed class BenchmarkActivities(IReadOnlyList<StorageTarget> targets, ResultsTableStore results, TimeProvider time, TelemetryEmitter? telemetry = null,
    RegressionRule? regressionRule = null, StorageCallPolicy? policy = null, ILoggerFactory? loggers = null, WorkerSeats? seats = null, WorkerRoster? roster = null)
{
    private readonly WorkerSeats _seats = seats ?? new WorkerSeats(WorkerSeats.ProcessWorker);

    private readonly RegressionRule _rule = regressionRule ?? new RegressionRule();
    private readonly ILogger _logger = (loggers ?? NullLoggerFactory.Instance).CreateLogger<BenchmarkActivities>();

    private StorageCallPolicy Policy => policy ?? results.Policy;

    private SliceRunner Slices => new(results, time, Policy, _logger, _seats);

    /// <summary>Deletes this tool's tables and containers (by the naming rule only) created more than the given hours ago.</summary>
    public async Task<CleanupResult> CleanupLeftoversAsync(double olderThanHours, CancellationToken ct)
    {
        var sent = new WireCounter();
        var cleaner = new TargetCleaner(targets, sent);
        return await StorageCall.RunAsync("deleting leftovers", Policy.Cleanup, async t =>
        {
            var leftovers = await cleaner.CreatedBeforeAsync(time.GetUtcNow().UtcDateTime.AddHours(-olderThanHours), t).ConfigureAwait(false);
            await cleaner.DeleteAsync(leftovers, t).ConfigureAwait(false);
            return new CleanupResult(leftovers.Count, [.. leftovers.Take(20).Select(l => l.Name)], sent.Sent);
        }, ct).ConfigureAwait(false);
    }

    /// <summary>
    /// The machine, the tool's build, the Azure SDK's versions and the GC mode, and how busy the machine is now (called at a run's start and end). It sends no
    /// request: the emulator's version comes from the Server header of the step's first requests (<see cref="PrepareTargetsAsync"/>).
    /// </summary>
    public Task<EnvironmentInfo> DescribeEnvironmentAsync() => Task.FromResult(
        new EnvironmentInfo(targets[0].Kind, Environment.MachineName, RuntimeInformation.FrameworkDescription, Environment.ProcessorCount, targets.Count)
        {
            MachineState = MachineSnapshot.Take(), ToolVersion = ToolVersion.Version, ToolCommit = ToolVersion.Commit,
            AzureSdk = DriverRuntime.AzureSdkVersions(), GarbageCollector = DriverRuntime.GarbageCollector,
        });

    /// <summary>Creates the step's table and/or container in every target account; returns the requests that took, counted on the wire.</summary>
    public Task<TargetRequests> PrepareTargetsAsync(StepTargets input, CancellationToken ct) =>
        StorageCall.RunAsync("creating the step's table and container", Policy.Setup, t => StepStorage.CreateAsync(targets, input, t), ct);

    /// <summary>
    /// A slice of any workload, with its cancel polls, progress and slice row (<see cref="SliceRunner"/>); its room runs it.
    /// Refused, running nothing, when this worker already runs the order's cap of the step's slices (placement). An order with a
    /// segment runs that segment of its slice (<see cref="SegmentedSlice"/>).
    /// </summary>
    public Task<SliceOutcome> RunSliceAsync(SliceOrder order, CancellationToken ct)
    {
        var room = WorkloadList.Of(order.Workload);
        return Slices.RunAsync(order, room.ProgressOf(order) with { Segment = order.Segment?.Index },
            (stop, live) => SliceSegment.RunAsync(order.Segment, () => room.RunSliceAsync(order, targets[order.TargetIndex], time, stop, live, _logger)), ct);
    }

    /// <summary>
    /// Writes the run's stop signal, which its running slices poll about once a second: a step whose placement cannot be met
    /// stops the slices that did start, so nothing is left running.
    /// </summary>
    public Task<bool> StopRunAsync(string runId, CancellationToken ct) =>
        StorageCall.RunAsync("stopping the run's slices", Policy.Results, async t =>
        {
            await results.RequestCancelAsync(runId, t).ConfigureAwait(false);
            return true;
        }, ct);

    /// <summary>The worker processes up on this task hub (their heartbeats in the control plane); none where workers do not register (the Function App).</summary>
    public async Task<WorkerSeen[]> ListWorkersAsync(CancellationToken ct) =>
        roster is null ? [] : [.. await StorageCall.RunAsync("listing the hub's workers", Policy.Quick, roster.ListAsync, ct).ConfigureAwait(false)];

    /// <summary>Writes what a reading workload's slice will read, outside the measured window; safe to run twice; stopped by the run's cancel.</summary>
    public Task<SeedResult> SeedSliceAsync(SliceOrder order, CancellationToken ct)
    {
        string what = $"seeding {order.Workload} slice {order.SliceIndex}";
        return SeedCancelWatch.RunAsync(what, order.RunId, results, Policy, time, _logger,
            t => StorageCall.RunAsync(what, Policy.Seeding, s => WorkloadList.Of(order.Workload).SeedAsync(order, targets[order.TargetIndex], s), t), ct);
    }

    /// <summary>
    /// Verification: counted in storage under its deadline. Storage that cannot be read (dead, slow, refusing) gives
    /// "not verified" with the reason, and the measured figures are kept.
    /// </summary>
    public async Task<VerifyOutcome> VerifyAsync(VerifyInput input, CancellationToken ct)
    {
        var order = input.Order;
        var verified = await VerifyAsync(order.Workload, t => WorkloadList.Of(order.Workload).VerifyAsync(order, targets, t), ct).ConfigureAwait(false);
        TargetRequests? deleted = null;
        if (input.ThenDelete is { } step)
        {
            try
            {
                deleted = await DeleteTargetsAsync(step, ct).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is not OperationCanceledException || !ct.IsCancellationRequested)
            {
                // The count stands; the step deletes them itself and names what fails there.
                _logger.TargetsNotDeleted(ex, step.StepId);
            }
        }
        return new VerifyOutcome(verified, deleted);
    }

    private async Task<VerificationResult> VerifyAsync(string what, Func<CancellationToken, Task<VerificationResult>> verify, CancellationToken ct)
    {
        try
        {
            return await StorageCall.RunAsync("verification", Policy.Verification, verify, ct).ConfigureAwait(false);
        }
        catch (StorageCallFailedException ex)
        {
            _logger.NotVerified(ex.InnerException ?? ex, what, ex.Failure.Text);
            return VerificationResult.StorageUnreadable(ex.Failure.Text);
        }
    }

    /// <summary>
    /// Deletes the step's table and container in every target account, whichever exist (only the kinds the step
    /// uses: it creates no other). Safe after any failure. Returns the requests that took, counted on the wire.
    /// </summary>
    public Task<TargetRequests> DeleteTargetsAsync(StepTargets input, CancellationToken ct) =>
        StorageCall.RunAsync("deleting the step's table and container", Policy.Cleanup, t => StepStorage.DeleteAsync(targets, input, t), ct);

    /// <summary>Stores the step's row and deletes the slice rows of executions whose results were not used.</summary>
    /// <remarks>Retried by the SDK within <see cref="StorageCallPolicy.Results"/>; past it the step keeps its local figures and names the error.</remarks>
    public Task<bool> StoreStepAsync(StoreStepInput input, CancellationToken ct) =>
        StorageCall.RunAsync("step row", Policy.Results, async t =>
        {
            foreach (var a in input.Accepted)
            {
                await results.DiscardSliceRowsAsync(input.Step.RunId, Planner.StepId(input.Step.RunId, input.Step.StepIndex), a.Workload, a.Attempts, t).ConfigureAwait(false);
            }
            await results.SaveStepAsync(input.Step, t).ConfigureAwait(false);
            return true;
        }, ct);

    public async Task<RegressionVerdict> CheckRegressionAsync(RegressionInput input, CancellationToken ct) =>
        input.NotJudgedReason is { } why ? new RegressionVerdict(ChangeOutcome.CannotJudge, why, 0, [])
            : _rule.Evaluate(await StorageCall.RunAsync("regression baseline", Policy.Results, t => results.BaselineAsync(input, _rule.MaxBaselineRuns, t), ct).ConfigureAwait(false));

    public Task<bool> StoreRunAsync(RunSummary run, CancellationToken ct) =>
        StorageCall.RunAsync("run row", Policy.Results, async t =>
        {
            await results.SaveRunAsync(run, t).ConfigureAwait(false);
            return true;
        }, ct);

    /// <summary>Sends a step's workload events to Application Insights; false when not configured.</summary>
    public Task<bool> EmitStepTelemetryAsync(StepTelemetryInput input, CancellationToken ct) => EmitAsync(TelemetryEvents.ForWorkloads(input.Run, input.Workloads), ct);

    /// <summary>Sends the run's own events (and its regression verdict, if judged); false when not configured.</summary>
    public Task<bool> EmitRunTelemetryAsync(RunSummary run, CancellationToken ct) => EmitAsync(TelemetryEvents.ForRun(run), ct);

    private async Task<bool> EmitAsync(IReadOnlyList<AppEvent> events, CancellationToken ct)
    {
        if (telemetry is null)
        {
            return false;
        }
        await telemetry.EmitAsync(events, ct).ConfigureAwait(false);
        return true;
    }
}
