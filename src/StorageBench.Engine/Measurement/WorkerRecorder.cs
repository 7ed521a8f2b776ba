using System.Diagnostics;

namespace StorageBench.Engine.Measurement;

/// <summary>
/// What one worker loop observed. Single-threaded by design: each in-flight loop owns one, and the
/// slice merges them at the end, so recording takes no locks. Memory is fixed: a histogram and a
/// bounded timeline, never anything per request or per second of run time.
/// </summary>
public sealed class WorkerRecorder
{
    private readonly long[] _byOutcome = new long[Enum.GetValues<Outcome>().Length];
    private readonly TimelineBuckets _timeline;
    private readonly long _anchorUnixTicks;
    private readonly long _anchorTimestamp;
    private readonly bool _recordLatency;

    /// <param name="recordLatency">False for requests of another kind (a blob commit) that count but must not mix into the histogram.</param>
    /// <param name="openLoop">Requests have slots in a schedule: latency runs from the slot, and the schedule's lag is recorded.</param>
    public WorkerRecorder(long anchorUnixTicks, long anchorTimestamp, bool recordLatency = true, bool openLoop = false)
    {
        _anchorUnixTicks = anchorUnixTicks;
        _anchorTimestamp = anchorTimestamp;
        _recordLatency = recordLatency;
        _timeline = new TimelineBuckets(anchorUnixTicks / TimeSpan.TicksPerSecond);
        // In a closed loop a request is due when it is sent: its latency is its service time, one histogram serves both.
        ServiceTime = openLoop ? LatencyHistograms.Pool.Get() : Latency;
        Lag = openLoop ? LatencyHistograms.Pool.Get() : null;
    }

    /// <summary>
    /// Hands the histograms back to <see cref="LatencyHistograms.Pool"/> for the next execution's recorders, once nothing reads
    /// them any more (the slice's result is made and its live progress has taken its last figures): this recorder records nothing after.
    /// </summary>
    public void Return()
    {
        LatencyHistograms.Pool.Return(Latency);
        if (ServiceTime != Latency)
        {
            LatencyHistograms.Pool.Return(ServiceTime);
        }
        if (Lag is not null)
        {
            LatencyHistograms.Pool.Return(Lag);
        }
    }

    /// <summary>
    /// Latency of successful requests only (fast 503s would otherwise pull percentiles down), from when each was due: its
    /// slot in an open loop's schedule, so the time it waited behind a busy loop counts, as its caller would have waited.
    /// </summary>
    public LatencyHistogram Latency { get; } = LatencyHistograms.Pool.Get();

    /// <summary>Service time of successful requests: from the send to the answer (the same histogram as <see cref="Latency"/> in a closed loop).</summary>
    public LatencyHistogram ServiceTime { get; }

    /// <summary>Open loop: how late each measured request went out after its slot (µs, 0 when on time); null in a closed loop.</summary>
    public LatencyHistogram? Lag { get; }

    private long _units;

    public long Units => _units;

    /// <summary>Warm-up requests: sent and (if successful) stored, but in no statistic.</summary>
    public long WarmupOperations { get; private set; }

    public long WarmupUnits { get; private set; }

    /// <summary>Stopwatch timestamps bounding the measured (non-warm-up) requests; 0 when there were none.</summary>
    public long FirstMeasuredStart { get; private set; }

    public long LastMeasuredEnd { get; private set; }

    public long[] CountsByOutcome => _byOutcome;

    /// <summary>Units in every request sent, succeeded or not, warm-up included: the work attempted.</summary>
    public long UnitsAttempted { get; private set; }

    public Timeline Timeline => _timeline.ToTimeline();

    /// <summary>
    /// Records one finished request. <paramref name="startTimestamp"/> is when it was sent, <paramref name="dueTimestamp"/> its
    /// slot in an open loop's schedule (Stopwatch ticks). Latency runs from the earlier of the two to now: from the slot when
    /// the request went out late, from the send when the timer woke early (from the slot it would be shorter than the service
    /// took). Service time runs from the send. A closed loop's recorder ignores <paramref name="dueTimestamp"/>.
    /// </summary>
    public void Record(Outcome outcome, long startTimestamp, long units, bool warmup = false, long dueTimestamp = long.MaxValue)
    {
        long end = Stopwatch.GetTimestamp();
        UnitsAttempted += units;
        if (warmup)
        {
            WarmupOperations++;
            WarmupUnits += outcome == Outcome.Succeeded ? units : 0;
            return;
        }
        if (FirstMeasuredStart == 0 || startTimestamp < FirstMeasuredStart)
        {
            FirstMeasuredStart = startTimestamp;
        }
        LastMeasuredEnd = Math.Max(LastMeasuredEnd, end);
        _byOutcome[(int)outcome]++;
        // A closed loop's request is due when it is sent (its slot has no meaning there).
        long intended = Lag is null ? startTimestamp : Math.Min(dueTimestamp, startTimestamp);
        Lag?.RecordValue(Micros(startTimestamp - intended, lowest: 0));
        if (outcome != Outcome.Succeeded)
        {
            return;
        }
        if (_recordLatency)
        {
            Latency.RecordValue(Micros(end - intended));
            if (ServiceTime != Latency)
            {
                ServiceTime.RecordValue(Micros(end - startTimestamp));
            }
        }
        _units += units;
        _timeline.Add(ToUnixTicks(end) / TimeSpan.TicksPerSecond, 1, units);
    }

    /// <summary>
    /// Stopwatch ticks in µs, rounded up, never down: a sample is never shorter than the request took. In double:
    /// ticks * 10^6 would overflow a long on long runs (Linux: 1 ns timestamps).
    /// </summary>
    private static long Micros(long ticks, long lowest = 1) =>
        Math.Clamp((long)Math.Ceiling(ticks * 1e6 / Stopwatch.Frequency), lowest, LatencyHistograms.HighestTrackableMicros);

    /// <summary>
    /// The counts so far, read from another thread (the slice's progress publisher) while this worker
    /// records: each is one 64-bit value only this worker writes, so a read is whole, at most a request behind.
    /// </summary>
    public LiveCounts Live(bool withUnits = true)
    {
        long operations = 0;
        for (int i = 0; i < _byOutcome.Length; i++)
        {
            operations += Volatile.Read(ref _byOutcome[i]);
        }
        return new LiveCounts(operations, withUnits ? Volatile.Read(ref _units) : 0,
            Volatile.Read(ref _byOutcome[(int)Outcome.Throttled]),
            operations - Volatile.Read(ref _byOutcome[(int)Outcome.Succeeded]));
    }

    /// <summary>A Stopwatch timestamp as UTC ticks since the Unix epoch, through the slice's anchor.</summary>
    public long ToUnixTicks(long timestamp) => _anchorUnixTicks + Stopwatch.GetElapsedTime(_anchorTimestamp, timestamp).Ticks;
}
