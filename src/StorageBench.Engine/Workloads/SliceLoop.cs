
namespace StorageBench.Engine.Workloads;

/// <summary>What every slice's measured window starts from: who it is, when it starts, and what its spec says about its length and warm-up.</summary>
/// <param name="Endpoint">The service endpoint its requests go to: the breaker names it when storage goes away.</param>
public sealed record SliceStart(string StepId, string Workload, int SliceIndex, int TargetIndex, DateTime StartAtUtc, WorkloadSpec Spec, Uri Endpoint);

/// <summary>
/// The engine's slice loop, the one every workload runs on (as Azure.Test.Perf's PerfTest owns its loop and a test is its
/// operation): it waits for the synchronized start, reads the CPU, hands operations out to the room's loops on the
/// schedule (closed loop, or an open loop whose latency runs from each slot), keeps warm-up out of the figures, gives the
/// live progress its recorders, stops on cancellation or when storage goes away (<see cref="UnreachableBreaker"/>), and
/// merges what the loops recorded into the slice's result. The room supplies its loops' state and one operation.
/// </summary>
public static class SliceLoop
{
    public static async Task<SliceResult> RunAsync<TLoop>(SliceStart start, SliceWork<TLoop> work, SliceRequests priming, Func<long> wire, TimeProvider time,
        CancellationToken ct, LiveSlice? live)
    {
        var segment = SliceSegment.Current;
        // A later segment goes on at once: its first slots may already be due (latency runs from them).
        var startAt = segment?.OriginUtc is { } origin ? origin.AddSeconds(segment.StartSeconds) : start.StartAtUtc;
        var clock = await SliceClock.StartAtAsync(startAt, time, ct).ConfigureAwait(false);
        double cpuAtStart = SliceResult.ProcessCpuSeconds();
        double paused = segment is null ? 0 : SliceSegment.PauseOf(startAt, clock.StartedUtc);
        var originUtc = segment?.OriginUtc?.AddSeconds(paused) ?? clock.StartedUtc;
        var schedule = new OperationSchedule(start.Spec, work.Count, work.OperationsPerSecond,
            segment is null ? clock.StartTimestamp : clock.TimestampOf(originUtc), segment);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var breaker = new UnreachableBreaker(work.Loops * work.Lanes, stop, start.Endpoint);
        var recorders = new WorkerRecorder[work.Loops * work.Lanes];
        for (int r = 0; r < recorders.Length; r++)
        {
            recorders[r] = clock.NewRecorder(openLoop: schedule.IsOpenLoop);
        }
        // Requests of another kind (a blob's commit or create): counted, in the measured window, never timed.
        var apart = work.CountsApart ? new Lane(clock.NewRecorder(recordLatency: false), schedule, breaker) : null;
        var window = new SliceWindow(schedule, stop.Token, apart, clock.StartTimestamp);
        var loops = new Task[work.Loops];
        for (int l = 0; l < loops.Length; l++)
        {
            var lanes = recorders.Skip(l * work.Lanes).Take(work.Lanes).Select(r => new Lane(r, schedule, breaker)).ToArray();
            int loop = l;
            loops[l] = Task.Run(() => LoopAsync(work, loop, lanes, window), CancellationToken.None);
        }
        live?.Watch(recorders, countOnly: apart?.Recorder);
        await Task.WhenAll(loops).ConfigureAwait(false);
        var result = SliceResult.FromWorkers(start.StepId, work.AttemptId, start.Workload, start.SliceIndex, start.TargetIndex, cpuAtStart, recorders,
            apart?.Recorder, requests: priming with { Wire = wire() }) with
        {
            StartLagSeconds = clock.LagSeconds(startAt.AddSeconds(paused)),
            Canceled = ct.IsCancellationRequested,
            StopReason = breaker.Reason,
            DroppedOperations = schedule.Dropped(),
            Continuation = segment is null ? null : new SegmentContinuation(originUtc, schedule.NextOperation()),
            PausedSeconds = paused,
            Notes = paused > 0 ? [SliceSegment.PausedNote(segment!, paused)] : [],
        };
        result = work.Finish(result, recorders);
        // The figures are taken: the histograms go to the next execution's recorders (a segment's workers made new ones).
        live?.Release();
        foreach (var recorder in apart is null ? recorders : [.. recorders, apart.Recorder])
        {
            recorder.Return();
        }
        NativeHeap.Trim();
        return result;
    }

    private static async Task LoopAsync<TLoop>(SliceWork<TLoop> work, int loop, Lane[] lanes, SliceWindow window)
    {
        var state = work.NewLoop(loop);
        try
        {
            while (!window.Stopping.IsCancellationRequested && work.TryNext(state, window, out long index, out long due))
            {
                // Prepared before its slot, so building a request is never in its latency.
                work.Prepare(state, index);
                if (!await OperationSchedule.WaitUntilAsync(due, window.Stopping).ConfigureAwait(false))
                {
                    break;
                }
                await work.SendAsync(state, new Operation(index, due, lanes, window)).ConfigureAwait(false);
            }
        }
        finally
        {
            (state as IDisposable)?.Dispose();
        }
    }
}

/// <summary>
/// A room's slice as the engine's loop runs it: how many loops (each with its own state: a driver, a buffer), how many
/// recorders each loop's operation uses at once (a blob's parallel blocks), the schedule's count and rate, and one
/// operation. One instance per slice execution.
/// </summary>
public abstract class SliceWork<TLoop>
{
    /// <summary>This execution's id: every entity or blob it writes carries it.</summary>
    public string AttemptId { get; } = SliceResult.NewAttemptId();

    /// <summary>Loops sending operations side by side.</summary>
    public abstract int Loops { get; }

    /// <summary>Requests one loop's operation has in flight at once, each on its own recorder (1 unless an operation is a parallel group).</summary>
    public virtual int Lanes => 1;

    /// <summary>Operations in a fixed-count slice (a duration ignores it).</summary>
    public virtual long Count => long.MaxValue;

    /// <summary>Operations started per second in an open loop; 0 = closed loop.</summary>
    public virtual double OperationsPerSecond => 0;

    /// <summary>True when some requests are counted apart from the timed ones (<see cref="SliceWindow.Apart"/>).</summary>
    public virtual bool CountsApart => false;

    public abstract TLoop NewLoop(int index);

    /// <summary>The next operation and when it is due; by default the schedule's (a room with its own order, such as a download queue, overrides it).</summary>
    public virtual bool TryNext(TLoop state, SliceWindow window, out long index, out long due) => window.Schedule.TryNext(out index, out due);

    /// <summary>Builds operation <paramref name="index"/>'s request before its slot comes.</summary>
    public virtual void Prepare(TLoop state, long index)
    {
    }

    /// <summary>Sends one operation, recording each of its requests on a lane.</summary>
    public abstract Task SendAsync(TLoop state, Operation operation);

    /// <summary>The room's own figures added to what the loops recorded.</summary>
    public virtual SliceResult Finish(SliceResult result, IReadOnlyList<WorkerRecorder> recorders) => result;
}

/// <summary>What a slice's loops share while it runs: the schedule, the stop signal, and the recorder of requests counted apart.</summary>
public sealed class SliceWindow
{
    internal SliceWindow(OperationSchedule schedule, CancellationToken stopping, Lane? apart, long startTimestamp)
    {
        Schedule = schedule;
        Stopping = stopping;
        Apart = apart;
        StartTimestamp = startTimestamp;
    }

    internal OperationSchedule Schedule { get; }

    /// <summary>Canceled when the run is canceled or the breaker stopped the slice: send nothing new.</summary>
    public CancellationToken Stopping { get; }

    /// <summary>Requests counted but not timed (commits, creates); null unless the room asked for it.</summary>
    public Lane? Apart { get; }

    /// <summary>The measured window's start (Stopwatch ticks).</summary>
    public long StartTimestamp { get; }

    /// <summary>True once a fixed-duration slice has run its time.</summary>
    public bool HasEnded() => Schedule.HasEnded();

    /// <summary>Warm-up by time only (a request that is no operation of the schedule: a commit, a blob done).</summary>
    public bool IsWarmupNow() => Schedule.IsWarmup(long.MaxValue, System.Diagnostics.Stopwatch.GetTimestamp());
}

/// <summary>One operation handed to a loop: its index in the schedule, its slot, and the lanes it records on.</summary>
public readonly record struct Operation(long Index, long Due, IReadOnlyList<Lane> Lanes, SliceWindow Window)
{
    public Lane Lane => Lanes[0];
}

/// <summary>
/// Where one request at a time is sent and recorded: the one place a measured request is timed, classified, recorded (latency
/// from the earlier of its slot and its send; warm-up kept out) and shown to the breaker. Single-threaded, as its recorder.
/// </summary>
public sealed class Lane
{
    private readonly OperationSchedule _schedule;
    private readonly UnreachableBreaker _breaker;

    internal Lane(WorkerRecorder recorder, OperationSchedule schedule, UnreachableBreaker breaker)
    {
        Recorder = recorder;
        _schedule = schedule;
        _breaker = breaker;
    }

    internal WorkerRecorder Recorder { get; }

    /// <summary>
    /// Sends a request and classifies how it ended. Not canceled with the slice: a request in flight finishes (or times out)
    /// and is counted, so what a slice reports is exactly what it did.
    /// </summary>
    public static async Task<Sent<T>> SendAsync<T>(Func<Task<T>> request)
    {
        long start = System.Diagnostics.Stopwatch.GetTimestamp();
        try
        {
            return new Sent<T>(Outcome.Succeeded, await request().ConfigureAwait(false), start, null);
        }
        catch (Exception ex) when (OutcomeClassifier.Classify(ex, CancellationToken.None) is { } failed)
        {
            return new Sent<T>(failed, default, start, ex);
        }
    }

    /// <inheritdoc cref="SendAsync{T}(Func{Task{T}})"/>
    public static Task<Sent<bool>> SendAsync(Func<Task> request) => SendAsync(async () =>
    {
        await request().ConfigureAwait(false);
        return true;
    });

    /// <summary>
    /// Records a finished request of <paramref name="units"/>: warm-up when its operation index or its send falls in the
    /// warm-up (<paramref name="index"/> long.MaxValue: by time only), timed from <paramref name="due"/> in an open loop.
    /// </summary>
    public void Record<T>(Sent<T> sent, long units, long index, long due = long.MaxValue)
    {
        Recorder.Record(sent.Outcome, sent.Start, units, _schedule.IsWarmup(index, sent.Start), due);
        _breaker.Observe(sent.Outcome);
    }

    /// <summary>Whether a request sent at <paramref name="start"/> as operation <paramref name="index"/> is warm-up.</summary>
    public bool IsWarmup(long index, long start) => _schedule.IsWarmup(index, start);
}

/// <summary>How one request ended: its outcome, its answer when it succeeded, when it was sent, and its failure.</summary>
public readonly record struct Sent<T>(Outcome Outcome, T? Answer, long Start, Exception? Failure)
{
    public bool Succeeded => Outcome == Outcome.Succeeded;
}
