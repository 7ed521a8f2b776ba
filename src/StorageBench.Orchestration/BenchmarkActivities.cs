using System.Runtime.InteropServices;
using Azure;
using StorageBench.Engine.StorageCalls;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
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
/// <param name="policy">Deadlines of the storage calls outside the measured path (default: the results store's).</param>
public sealed class BenchmarkActivities(IReadOnlyList<StorageTarget> targets, ResultsTableStore results, TimeProvider time, TelemetryEmitter? telemetry = null,
    RegressionRule? regressionRule = null, StorageCallPolicy? policy = null)
{
    private readonly RegressionRule _rule = regressionRule ?? new RegressionRule();

    private StorageCallPolicy Policy => policy ?? results.Policy;

    /// <summary>Deletes this tool's tables and containers (by the naming rule only) created more than the given hours ago.</summary>
    public async Task<CleanupResult> CleanupLeftoversAsync(double olderThanHours, CancellationToken ct)
    {
        var cleaner = new TargetCleaner(targets);
        return await StorageCall.RunAsync("deleting leftovers", Policy.Cleanup, async t =>
        {
            var leftovers = await cleaner.CreatedBeforeAsync(time.GetUtcNow().UtcDateTime.AddHours(-olderThanHours), t).ConfigureAwait(false);
            await cleaner.DeleteAsync(leftovers, t).ConfigureAwait(false);
            return new CleanupResult(leftovers.Count, [.. leftovers.Take(20).Select(l => l.Name)]);
        }, ct).ConfigureAwait(false);
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
    public Task<TargetRequests> PrepareTargetsAsync(StepTargets input, CancellationToken ct) =>
        StorageCall.RunAsync("creating the step's table and container", Policy.Setup, t => CreateStepTargetsAsync(input, t), ct);

    private async Task<TargetRequests> CreateStepTargetsAsync(StepTargets input, CancellationToken ct)
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
    /// and publishes its progress — both in the results store, so they work across machines. None of that
    /// bookkeeping can fault the slice or lose its figures: what failed is in the result's notes.
    /// </summary>
    private async Task<SliceResult> RunSliceAsync(SliceProgress progress, string runId, Func<CancellationToken, LiveSlice, Task<SliceResult>> run, CancellationToken ct)
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        using var done = new CancellationTokenSource();
        var live = new LiveSlice();
        var misses = new BookkeepingMisses();
        var watch = WatchAsync(runId, progress, live, stop, done.Token, misses);
        SliceResult result;
        try
        {
            result = await run(stop.Token, live).ConfigureAwait(false);
        }
        finally
        {
            await done.CancelAsync().ConfigureAwait(false);
            await watch.ConfigureAwait(false);   // never faults: WatchAsync catches everything
        }
        await BookkeepingAsync(misses, "final progress update skipped", Policy.Quick,
            t => results.SaveProgressAsync(runId, progress with { Counts = live.Read(), UpdatedUtc = time.GetUtcNow().UtcDateTime, Done = true }, t)).ConfigureAwait(false);
        // When this fails, the figures still travel back in the result; only the per-slice row is missing (the notes say so).
        await BookkeepingAsync(misses, "slice row not stored (figures kept in the step's result)", Policy.Results,
            t => results.SaveSliceAsync(runId, result, t)).ConfigureAwait(false);
        return result with { Notes = misses.Lines() };
    }

    private async Task WatchAsync(string runId, SliceProgress progress, LiveSlice live, CancellationTokenSource stop, CancellationToken done, BookkeepingMisses misses)
    {
        var last = (Units: 0L, At: time.GetTimestamp());
        while (!done.IsCancellationRequested && !stop.IsCancellationRequested)
        {
            try
            {
                // Unanswered in time: no cancel seen, keep going.
                var (canceled, unanswered) = await StorageCall.TryAsync("cancel poll", Policy.Quick, t => results.IsCancelRequestedAsync(runId, t), done).ConfigureAwait(false);
                if (unanswered is not null)
                {
                    misses.Add("cancel poll unanswered (no cancel seen)", unanswered.Text);
                }
                else if (canceled)
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
                    // Not stored in time: this update is skipped; the next one carries the counts.
                    var (_, skipped) = await StorageCall.TryAsync("progress", Policy.Quick, async t =>
                    {
                        await results.SaveProgressAsync(runId, progress with { Counts = counts, UnitsPerSecond = rate, UpdatedUtc = time.GetUtcNow().UtcDateTime }, t).ConfigureAwait(false);
                        return true;
                    }, done).ConfigureAwait(false);
                    if (skipped is not null)
                    {
                        misses.Add("progress update skipped", skipped.Text);
                    }
                }
            }
            catch (OperationCanceledException) when (done.IsCancellationRequested)
            {
                return;
            }
            catch (Exception ex)
            {
                // Not a storage failure (a bug, a store disposed under it): the slice goes on, and so does the watch.
                misses.Add("progress or cancel poll failed (not a storage failure)", $"{ex.GetType().FullName}: {ex.Message.ReplaceLineEndings(" ")}");
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

    /// <summary>Bookkeeping that must not fail the slice: the results store may be slow or unreachable. A failure is noted, not swallowed.</summary>
    private static async Task BookkeepingAsync(BookkeepingMisses misses, string what, TimeSpan deadline, Func<CancellationToken, Task> write)
    {
        try
        {
            await StorageCall.RunAsync(what, deadline, write, CancellationToken.None).ConfigureAwait(false);
        }
        catch (StorageCallFailedException ex)
        {
            misses.Add(what, ex.Failure.Text);
        }
        catch (Exception ex)
        {
            misses.Add(what, $"{ex.GetType().FullName}: {ex.Message.ReplaceLineEndings(" ")}");
        }
    }

    /// <summary>
    /// Verification: counted in storage under its deadline. Storage that cannot be read (dead, slow, refusing) gives
    /// "not verified" with the reason, and the measured figures are kept.
    /// </summary>
    public Task<VerificationResult> VerifyTableAsync(VerifyTableInput input, CancellationToken ct) =>
        VerifyAsync(t => GroundTruth.VerifyTableAsync(targets, input.TableName, input.AcceptedAttempts, input.ReportedEntities, t), ct);

    public Task<VerificationResult> VerifyBlobsAsync(VerifyBlobsInput input, CancellationToken ct) =>
        VerifyAsync(t => GroundTruth.VerifyBlobsAsync(targets, input.ContainerName, input.AcceptedAttempts, input.ReportedBlobs, input.BlobSizeBytes, input.ContentMd5ByAttempt, t), ct);

    private async Task<VerificationResult> VerifyAsync(Func<CancellationToken, Task<VerificationResult>> verify, CancellationToken ct)
    {
        try
        {
            return await StorageCall.RunAsync("verification", Policy.Verification, verify, ct).ConfigureAwait(false);
        }
        catch (StorageCallFailedException ex)
        {
            return VerificationResult.Skipped(NotVerified + ex.Failure.Text + ")");
        }
    }

    /// <summary>How a verification that could not read storage starts its detail.</summary>
    public const string NotVerified = "not verified: storage could not be read after the run (";

    /// <summary>
    /// Deletes the step's table and container in every target account, whichever exist (only the kinds the step
    /// uses: it creates no other). Safe after any failure. Returns the requests that took, counted on the wire.
    /// </summary>
    public Task<TargetRequests> DeleteTargetsAsync(StepTargets input, CancellationToken ct) =>
        StorageCall.RunAsync("deleting the step's table and container", Policy.Cleanup, t => DeleteStepTargetsAsync(input, t), ct);

    private async Task<TargetRequests> DeleteStepTargetsAsync(StepTargets input, CancellationToken ct)
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
        input.NotJudgedReason is { } why ? new RegressionVerdict(RegressionVerdict.NotJudged, why, 0, [])
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

/// <summary>A slice's bookkeeping calls that failed, by kind: how often and the last reason, one line each in the slice's notes.</summary>
internal sealed class BookkeepingMisses
{
    private readonly Dictionary<string, (int Count, string Last)> _byKind = [];

    public void Add(string kind, string reason)
    {
        lock (_byKind)
        {
            _byKind[kind] = (_byKind.GetValueOrDefault(kind).Count + 1, reason);
        }
    }

    public IReadOnlyList<string> Lines()
    {
        lock (_byKind)
        {
            // "kind: detail" (the kind has no ": "), so the step can put the same kind of every slice on one line.
            return [.. _byKind.Select(k => k.Value.Count == 1 ? $"{k.Key}: {k.Value.Last}" : $"{k.Key}: {k.Value.Count} times, last {k.Value.Last}")];
        }
    }
}
