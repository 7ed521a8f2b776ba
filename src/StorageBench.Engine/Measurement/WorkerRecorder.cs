using System.Diagnostics;
using HdrHistogram;

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
    public WorkerRecorder(long anchorUnixTicks, long anchorTimestamp, bool recordLatency = true)
    {
        _anchorUnixTicks = anchorUnixTicks;
        _anchorTimestamp = anchorTimestamp;
        _recordLatency = recordLatency;
        _timeline = new TimelineBuckets(anchorUnixTicks / TimeSpan.TicksPerSecond);
    }

    /// <summary>Latency of successful requests only: fast 503s would otherwise pull percentiles down.</summary>
    public LongHistogram Latency { get; } = LatencyHistograms.Create();

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
    /// Records one finished request. <paramref name="startTimestamp"/> is when it was sent, in Stopwatch ticks;
    /// latency runs from there to now.
    /// </summary>
    public void Record(Outcome outcome, long startTimestamp, long units, bool warmup = false)
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
        if (outcome != Outcome.Succeeded)
        {
            return;
        }
        if (_recordLatency)
        {
            // Rounded up to the microsecond, never down: a sample is never shorter than the request took. In double:
            // (end - start) * 10^6 would overflow a long on long runs (Linux: 1 ns timestamps).
            long micros = (long)Math.Ceiling((end - startTimestamp) * 1e6 / Stopwatch.Frequency);
            Latency.RecordValue(Math.Clamp(micros, 1, LatencyHistograms.HighestTrackableMicros));
        }
        _units += units;
        _timeline.Add(ToUnixTicks(end) / TimeSpan.TicksPerSecond, 1, units);
    }

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
