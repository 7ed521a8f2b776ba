using System.Runtime.InteropServices;
using Azure;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Telemetry;
using StorageBench.Engine.Verification;
using StorageBench.Engine.Workloads;

namespace StorageBench.Orchestration;

/// <summary>
/// The activities: each one a thin call into the engine or the results store. A host (the in-process
/// host, or a Function App) binds each method to its <see cref="ActivityNames"/> entry. Every one is
/// safe to run more than once, as Durable Task may run an activity again.
/// </summary>
/// <param name="targets">The target accounts; a slice's plan names the one it writes to.</param>
/// <param name="telemetry">Null when no Application Insights connection is configured: telemetry is then skipped.</param>
public sealed class BenchmarkActivities(IReadOnlyList<StorageTarget> targets, ResultsTableStore results, TimeProvider time, TelemetryEmitter? telemetry = null,
    RegressionRule? regressionRule = null)
{
    private readonly RegressionRule _rule = regressionRule ?? new RegressionRule();

    /// <summary>Deletes this tool's tables and containers (by the naming rule only) created more than the given hours ago.</summary>
    public async Task<CleanupResult> CleanupLeftoversAsync(double olderThanHours, CancellationToken ct)
    {
        var cleaner = new TargetCleaner(targets);
        var leftovers = await cleaner.CreatedBeforeAsync(time.GetUtcNow().UtcDateTime.AddHours(-olderThanHours), ct).ConfigureAwait(false);
        await cleaner.DeleteAsync(leftovers, ct).ConfigureAwait(false);
        return new CleanupResult(leftovers.Count, [.. leftovers.Take(20).Select(l => l.Name)]);
    }

    /// <summary>
    /// The machine, the tool's build, and how busy the machine is now (called at a run's start and end). It sends no
    /// request: the emulator's version comes from the Server header of the step's first requests (<see cref="PrepareTargetsAsync"/>).
    /// </summary>
    public Task<EnvironmentInfo> DescribeEnvironmentAsync() => Task.FromResult(
        new EnvironmentInfo(targets[0].Kind, Environment.MachineName, RuntimeInformation.FrameworkDescription, Environment.ProcessorCount, targets.Count)
        {
            MachineState = MachineSnapshot.Take(), ToolVersion = ToolVersion.Version, ToolCommit = ToolVersion.Commit,
        });

    /// <summary>Creates the step's table and/or container in every target account; returns the requests that took, counted on the wire.</summary>
    public async Task<TargetRequests> PrepareTargetsAsync(StepTargets input, CancellationToken ct)
    {
        long tables = 0, containers = 0;
        string? server = null;
        foreach (var target in targets)
        {
            using var clients = target.CreateClients(new() { SdkRetries = true });
            if (input.Table)
            {
                await clients.Tables.CreateTableIfNotExistsAsync(input.TableName, ct).ConfigureAwait(false);
            }
            if (input.Blob)
            {
                await clients.Blobs.GetBlobContainerClient(input.ContainerName).CreateIfNotExistsAsync(cancellationToken: ct).ConfigureAwait(false);
            }
            tables += clients.TableWire.Sent;
            containers += clients.BlobWire.Sent;
            server ??= clients.TableWire.Server ?? clients.BlobWire.Server;
        }
        return new TargetRequests(tables, containers) { Server = server };
    }

    public Task<SliceResult> RunTableSliceAsync(TableSlicePlan plan, CancellationToken ct) =>
        RunSliceAsync(new SliceProgress(plan.StepId, TableInsertWorkload.Name, plan.SliceIndex, default, 0,
                plan.Workload.DurationSeconds > 0 ? 0 : plan.EntityCount, plan.Workload.DurationSeconds, plan.StartAtUtc, default, false),
            plan.RunId, (stop, live) => TableInsertWorkload.RunAsync(plan, targets[plan.TargetIndex], time, stop, live), ct);

    public Task<SliceResult> RunBlobSliceAsync(BlobSlicePlan plan, CancellationToken ct) =>
        RunSliceAsync(new SliceProgress(plan.StepId, BlobUploadWorkload.Name, plan.SliceIndex, default, 0,
                plan.Workload.DurationSeconds > 0 ? 0 : plan.BlobCount * plan.Workload.BlobSizeBytes, plan.Workload.DurationSeconds, plan.StartAtUtc, default, false),
            plan.RunId, (stop, live) => BlobUploadWorkload.RunAsync(plan, targets[plan.TargetIndex], time, stop, live), ct);

    /// <summary>
    /// Runs a slice until it is done, the host stops it, or its run is canceled, then writes its slice
    /// row under its attempt id. Meanwhile, about once a second, it looks for its run's cancel request
    /// and publishes its progress — both in the results store, so they work across machines.
    /// </summary>
    private async Task<SliceResult> RunSliceAsync(SliceProgress progress, string runId, Func<CancellationToken, LiveSlice, Task<SliceResult>> run, CancellationToken ct)
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        using var done = new CancellationTokenSource();
        var live = new LiveSlice();
        var watch = WatchAsync(runId, progress, live, stop, done.Token);
        SliceResult result;
        try
        {
            result = await run(stop.Token, live).ConfigureAwait(false);
        }
        finally
        {
            await done.CancelAsync().ConfigureAwait(false);
            await watch.ConfigureAwait(false);
        }
        await Quietly(() => results.SaveProgressAsync(runId, progress with { Counts = live.Read(), UpdatedUtc = time.GetUtcNow().UtcDateTime, Done = true }, CancellationToken.None))
            .ConfigureAwait(false);
        // When this fails, the figures still travel back in the result; only the per-slice row is missing (the summary says so).
        await Quietly(() => results.SaveSliceAsync(runId, result, CancellationToken.None)).ConfigureAwait(false);
        return result;
    }

    private async Task WatchAsync(string runId, SliceProgress progress, LiveSlice live, CancellationTokenSource stop, CancellationToken done)
    {
        var last = (Units: 0L, At: time.GetTimestamp());
        while (!done.IsCancellationRequested && !stop.IsCancellationRequested)
        {
            try
            {
                if (await results.IsCancelRequestedAsync(runId, done).ConfigureAwait(false))
                {
                    await stop.CancelAsync().ConfigureAwait(false);
                    return;
                }
                // Nothing is measured before the start instant: no progress to publish yet.
                if (time.GetUtcNow().UtcDateTime >= progress.StartAtUtc)
                {
                    var counts = live.Read();
                    long now = time.GetTimestamp();
                    double seconds = time.GetElapsedTime(last.At, now).TotalSeconds;
                    double rate = seconds > 0 ? (counts.Units - last.Units) / seconds : 0;
                    last = (counts.Units, now);
                    await results.SaveProgressAsync(runId, progress with { Counts = counts, UnitsPerSecond = rate, UpdatedUtc = time.GetUtcNow().UtcDateTime }, done)
                        .ConfigureAwait(false);
                }
            }
            catch (OperationCanceledException) when (done.IsCancellationRequested)
            {
                return;
            }
            catch (Exception ex) when (IsStoreFailure(ex))
            {
                // The results store did not answer: no cancel seen, no progress shown; the slice goes on, and so does the watch.
            }
            try
            {
                await Task.Delay(UntilNextWatch(progress), time, done).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }

    /// <summary>
    /// About a second: the watch ticks 0.3–0.65 s (a per-slice offset) after each whole second from the
    /// start instant — never within 0.3 s of the instant itself, when every slice sends its first
    /// request, and not all slices at once.
    /// </summary>
    private TimeSpan UntilNextWatch(SliceProgress p)
    {
        double phase = 0.3 + p.Slice % 8 * 0.05;
        double since = (time.GetUtcNow().UtcDateTime - p.StartAtUtc).TotalSeconds - phase;
        double wait = Math.Ceiling(since) - since;
        return TimeSpan.FromSeconds(wait < 0.1 ? wait + 1 : wait);
    }

    private static bool IsStoreFailure(Exception ex) => ex is RequestFailedException or HttpRequestException or OperationCanceledException or AggregateException;

    /// <summary>Bookkeeping that must not fail the slice: the results store may be unreachable.</summary>
    private static async Task Quietly(Func<Task> write)
    {
        try
        {
            await write().ConfigureAwait(false);
        }
        catch (Exception ex) when (IsStoreFailure(ex))
        {
        }
    }

    public Task<VerificationResult> VerifyTableAsync(VerifyTableInput input, CancellationToken ct) =>
        GroundTruth.VerifyTableAsync(targets, input.TableName, input.AcceptedAttempts, input.ReportedEntities, ct);

    public Task<VerificationResult> VerifyBlobsAsync(VerifyBlobsInput input, CancellationToken ct) =>
        GroundTruth.VerifyBlobsAsync(targets, input.ContainerName, input.AcceptedAttempts, input.ReportedBlobs, input.BlobSizeBytes, input.ContentMd5ByAttempt, ct);

    /// <summary>
    /// Deletes the step's table and container in every target account, whichever exist (only the kinds the step
    /// uses: it creates no other). Safe after any failure. Returns the requests that took, counted on the wire.
    /// </summary>
    public async Task<TargetRequests> DeleteTargetsAsync(StepTargets input, CancellationToken ct)
    {
        long tables = 0, containers = 0;
        string? server = null;
        foreach (var target in targets)
        {
            using var clients = target.CreateClients(new() { SdkRetries = true });
            if (input.Table)
            {
                try
                {
                    await clients.Tables.DeleteTableAsync(input.TableName, ct).ConfigureAwait(false);
                }
                catch (RequestFailedException ex) when (ex.Status == 404)
                {
                }
            }
            if (input.Blob)
            {
                await clients.Blobs.GetBlobContainerClient(input.ContainerName).DeleteIfExistsAsync(cancellationToken: ct).ConfigureAwait(false);
            }
            tables += clients.TableWire.Sent;
            containers += clients.BlobWire.Sent;
            server ??= clients.TableWire.Server ?? clients.BlobWire.Server;
        }
        return new TargetRequests(tables, containers) { Server = server };
    }

    /// <summary>Stores the step's row and deletes the slice rows of executions whose results were not used.</summary>
    public async Task<bool> StoreStepAsync(StoreStepInput input, CancellationToken ct)
    {
        foreach (var a in input.Accepted)
        {
            await results.DiscardSliceRowsAsync(input.Step.RunId, Planner.StepId(input.Step.RunId, input.Step.StepIndex), a.Workload, a.Attempts, ct).ConfigureAwait(false);
        }
        await results.SaveStepAsync(input.Step, ct).ConfigureAwait(false);
        return true;
    }

    public async Task<RegressionVerdict> CheckRegressionAsync(RegressionInput input, CancellationToken ct) =>
        input.NotJudgedReason is { } why ? new RegressionVerdict(RegressionVerdict.NotJudged, why, 0, [])
            : _rule.Evaluate(await results.BaselineAsync(input, _rule.MaxBaselineRuns, ct).ConfigureAwait(false));

    public async Task<bool> StoreRunAsync(RunSummary run, CancellationToken ct)
    {
        await results.SaveRunAsync(run, ct).ConfigureAwait(false);
        return true;
    }

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
