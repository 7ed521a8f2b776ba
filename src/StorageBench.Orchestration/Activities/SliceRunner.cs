using Microsoft.Extensions.Logging;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.StorageCalls;

namespace StorageBench.Orchestration.Activities;

/// <summary>
/// Runs one slice until it is done, the host stops it, or its run is canceled, then writes its slice row under its
/// attempt id. Meanwhile, about once a second, its watch loop looks for the run's cancel request and publishes the
/// slice's progress — both in the results store, so they work across machines. None of that bookkeeping can fault the
/// slice or lose its figures: what failed is in the result's notes, and in the log with its exception.
/// A slice its host stopped (the invocation's token: shutdown, scale-in, deployment) while the run was not canceled hands
/// back no figures: it throws <see cref="HostStoppingException"/>, so the host abandons the work item and Durable runs the
/// slice again (that execution's note says re-run). Only the run's cancel signal makes partial figures a result.
/// </summary>
internal sealed class SliceRunner(ResultsTableStore results, TimeProvider time, StorageCallPolicy policy, ILogger logger, WorkerSeats seats)
{
    /// <summary>
    /// The slice, if this worker has a seat for it under the order's cap (placement); otherwise it runs nothing here and
    /// hands the order back, saying whether an earlier execution of it ran (the step then calls it again).
    /// </summary>
    public async Task<SliceOutcome> RunAsync(SliceOrder order, SliceProgress progress, Func<CancellationToken, LiveSlice, Task<SliceResult>> run, CancellationToken ct)
    {
        // Only where the step's slices already started here does it matter whether this one ran before (a re-run may take a freed seat).
        bool? rerun = seats.Spent(order.StepId, order.Workload, order.SlicesPerWorker) ? await EarlierExecutionAsync(order).ConfigureAwait(false) : null;
        using var seat = seats.TryTake(order.StepId, order.Workload, order.SliceIndex, order.SlicesPerWorker, rerun == true);
        if (seat is null)
        {
            return new SliceOutcome(null, new SeatRefusal(seats.Worker, seats.Running(order.StepId, order.Workload), rerun ?? await EarlierExecutionAsync(order).ConfigureAwait(false)));
        }
        // Taken after the start instant, never handed back, behind slices of its own step that ended here: this worker's activity
        // limit held it in the queue (a slice handed back was late for its placement, which a longer start delay helps).
        bool waited = seat.WaitedForWorker && order.HandBacks == 0 && time.GetUtcNow().UtcDateTime > order.StartAtUtc;
        var result = await RunAsync(progress with { Worker = seats.Worker }, order, run, ct).ConfigureAwait(false);
        return new SliceOutcome(result with { WaitedForWorker = waited });
    }

    private async Task<bool> EarlierExecutionAsync(SliceOrder order)
    {
        var (earlier, _) = await StorageCall.TryAsync("earlier execution", policy.Quick,
            t => results.SliceProgressAsync(order.RunId, order.StepId, order.Workload, order.SliceIndex, t), CancellationToken.None, logger).ConfigureAwait(false);
        return earlier is not null;
    }

    private async Task<SliceResult> RunAsync(SliceProgress progress, SliceOrder order, Func<CancellationToken, LiveSlice, Task<SliceResult>> run, CancellationToken ct)
    {
        string runId = order.RunId;
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        using var done = new CancellationTokenSource();
        var live = new LiveSlice(order.Segment?.Before ?? default);
        progress = progress with { Counts = live.Read() };
        var misses = new BookkeepingMisses();
        bool rerun = await ClaimAsync(runId, progress, misses).ConfigureAwait(false);
        var watch = WatchAsync(runId, progress, live, stop, done.Token, misses);
        SliceResult? result = null;
        bool cancelSeen;
        try
        {
            result = await run(stop.Token, live).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (ct.IsCancellationRequested)
        {
            // Stopped by the host before it had figures (e.g. waiting for the start): handed back as no result, below.
        }
        finally
        {
            await done.CancelAsync().ConfigureAwait(false);
            cancelSeen = await EndWatchAsync(watch, progress, misses).ConfigureAwait(false);
        }
        if (result is null || (ct.IsCancellationRequested && !cancelSeen && !await CancelSignalAsync(runId).ConfigureAwait(false)))
        {
            // Nothing more is written: the progress rows already name this execution, which makes the next one a re-run.
            string why = result is null ? "before it had figures" : "and its run was not canceled";
            logger.SliceLeftToRerun(progress.Slice, progress.StepId, live.Read().Units, why);
            throw new HostStoppingException($"slice {progress.Slice} of {progress.StepId} was stopped by its host's shutdown {why}: it hands back no figures, and Durable runs it again");
        }
        // Its row and its result name the worker it ran on (in tests, one of several in one process).
        result = result with { Worker = seats.Worker };
        await BookkeepingAsync(progress, misses, "final progress update skipped", policy.Quick,
            t => results.SaveProgressAsync(runId, progress with { Counts = live.Read(), UpdatedUtc = time.GetUtcNow().UtcDateTime, Done = true, Latency = live.ReadLatency() }, t)).ConfigureAwait(false);
        // When this fails, the figures still travel back in the result; only the per-slice row is missing (the notes say so).
        if (RowOf(order, result) is { } row)
        {
            await BookkeepingAsync(progress, misses, "slice row not stored (figures kept in the step's result)", policy.Results,
                t => results.SaveSliceAsync(runId, row, t)).ConfigureAwait(false);
        }
        return result with { Notes = [.. result.Notes, .. misses.Lines()], Rerun = rerun };
    }

    /// <summary>
    /// Before the start: an earlier execution of this slice that reported progress but whose result never reached the
    /// orchestrator (its worker was killed or recycled, or the message was delivered twice) makes this one a re-run, which the
    /// step's errors say (its writes are not counted: only accepted executions are verified). Then this execution's first
    /// progress row, naming its worker. True for a re-run.
    /// </summary>
    private async Task<bool> ClaimAsync(string runId, SliceProgress progress, BookkeepingMisses misses)
    {
        var (earlier, unanswered) = await StorageCall.TryAsync("earlier execution", policy.Quick,
            t => results.SliceProgressAsync(runId, progress.StepId, progress.Workload, progress.Slice, t), CancellationToken.None, logger).ConfigureAwait(false);
        // The finished segment before this one is no lost execution.
        earlier = earlier?.IsLostExecutionOf(progress) == true ? earlier : null;
        if (unanswered is not null)
        {
            misses.Add("earlier execution not looked up", unanswered.Text);
        }
        else if (earlier is not null)
        {
            misses.Add(RerunNote, $"an earlier execution on worker {earlier.Worker ?? "?"} (last reported {earlier.UpdatedUtc:HH:mm:ss} UTC, " +
                $"{earlier.Counts.Units:N0} units) did not hand back its result; this one ran on {progress.Worker}, and only its writes are counted");
        }
        await BookkeepingAsync(progress, misses, "progress update skipped", policy.Quick,
            t => results.SaveProgressAsync(runId, progress with { UpdatedUtc = time.GetUtcNow().UtcDateTime }, t)).ConfigureAwait(false);
        return earlier is not null;
    }

    /// <summary>
    /// The slice's row: its own figures, or for a segmented slice the whole slice's, stored by its last segment (one row per
    /// slice, as without segments; it names the first segment's attempt and the last one's worker); null for the other segments.
    /// </summary>
    private static SliceResult? RowOf(SliceOrder order, SliceResult result) => order.Segment is not { } segment ? result
        : segment.IsLast ? SegmentMerge.Add(order.SegmentsSoFar, result, segment.Index, segment.Count)
        : null;

    /// <summary>How a re-run slice's note starts (the step groups its slices' notes by it).</summary>
    public const string RerunNote = "re-run";

    /// <summary>
    /// Whether the watch saw the run's cancel signal. The watch catches everything itself; should it still fault, that is
    /// noted and logged, and the slice's figures stand.
    /// </summary>
    private async Task<bool> EndWatchAsync(Task<bool> watch, SliceProgress progress, BookkeepingMisses misses)
    {
        try
        {
            return await watch.ConfigureAwait(false);
        }
        catch (Exception ex)
        {
            Noted(progress, misses, ex);
            return false;
        }
    }

    /// <summary>
    /// After the host stopped the slice: did the run's cancel signal come meanwhile (the watch stops polling once the
    /// slice is stopped)? Unanswered counts as no: the slice then runs again, and that execution sees the signal at once.
    /// </summary>
    private async Task<bool> CancelSignalAsync(string runId)
    {
        var (canceled, _) = await StorageCall.TryAsync("cancel poll", policy.Quick, t => results.IsCancelRequestedAsync(runId, t), CancellationToken.None, logger).ConfigureAwait(false);
        return canceled;
    }

    /// <summary>Polls the run's cancel signal and publishes progress until the slice ends; true when it stopped the slice for the cancel signal.</summary>
    private async Task<bool> WatchAsync(string runId, SliceProgress progress, LiveSlice live, CancellationTokenSource stop, CancellationToken done, BookkeepingMisses misses)
    {
        var last = (live.Read().Units, At: time.GetTimestamp());
        while (!done.IsCancellationRequested && !stop.IsCancellationRequested)
        {
            try
            {
                // Unanswered in time: no cancel seen, keep going (StorageCall logs the failure).
                var (canceled, unanswered) = await StorageCall.TryAsync("cancel poll", policy.Quick, t => results.IsCancelRequestedAsync(runId, t), done, logger).ConfigureAwait(false);
                if (unanswered is not null)
                {
                    misses.Add("cancel poll unanswered (no cancel seen)", unanswered.Text);
                }
                else if (canceled)
                {
                    await stop.CancelAsync().ConfigureAwait(false);
                    return true;
                }
                // Nothing is measured before the start instant: no progress to publish yet.
                if (time.GetUtcNow().UtcDateTime >= progress.StartAtUtc)
                {
                    var counts = live.Read();
                    string? latency = live.ReadLatency();
                    long now = time.GetTimestamp();
                    double seconds = time.GetElapsedTime(last.At, now).TotalSeconds;
                    double rate = seconds > 0 ? (counts.Units - last.Units) / seconds : 0;
                    last = (counts.Units, now);
                    // Not stored in time: this update is skipped; the next one carries the counts.
                    var (_, skipped) = await StorageCall.TryAsync("progress", policy.Quick, async t =>
                    {
                        await results.SaveProgressAsync(runId, progress with { Counts = counts, UnitsPerSecond = rate, UpdatedUtc = time.GetUtcNow().UtcDateTime, Latency = latency }, t).ConfigureAwait(false);
                        return true;
                    }, done, logger).ConfigureAwait(false);
                    if (skipped is not null)
                    {
                        misses.Add("progress update skipped", skipped.Text);
                    }
                }
            }
            catch (Exception ex) when (done.IsCancellationRequested && (ex is OperationCanceledException || StorageFailures.Classify(ex, CancellationToken.None) is not null))
            {
                // The slice has ended: a poll cut short, or a storage failure met just then, no longer matters (the final update follows).
                return false;
            }
            catch (Exception ex)
            {
                // Not a storage failure (a bug, a store disposed under it): the slice goes on, and so does the watch.
                Noted(progress, misses, ex);
            }
            try
            {
                await Task.Delay(UntilNextWatch(progress), time, done).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                return false;
            }
        }
        return false;
    }

    private void Noted(SliceProgress progress, BookkeepingMisses misses, Exception ex)
    {
        logger.SliceWatchFailed(ex, progress.Slice, progress.StepId);
        misses.Add("progress or cancel poll failed (not a storage failure)", $"{ex.GetType().FullName}: {ex.Message.ReplaceLineEndings(" ")}");
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

    /// <summary>Bookkeeping that must not fail the slice: the results store may be slow or unreachable. A failure is noted and logged, not swallowed.</summary>
    private async Task BookkeepingAsync(SliceProgress progress, BookkeepingMisses misses, string what, TimeSpan deadline, Func<CancellationToken, Task> write)
    {
        try
        {
            await StorageCall.RunAsync(what, deadline, write, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception ex)
        {
            string reason = ex is StorageCallFailedException failed ? failed.Failure.Text : $"{ex.GetType().FullName}: {ex.Message.ReplaceLineEndings(" ")}";
            logger.SliceBookkeepingSkipped(ex, progress.Slice, progress.StepId, what, reason);
            misses.Add(what, reason);
        }
    }
}
