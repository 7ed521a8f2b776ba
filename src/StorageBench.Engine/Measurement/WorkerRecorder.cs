using System.Diagnostics;
using HdrHistogram;

namespace StorageBench.Engine.Measurement;

/// <summary>
/// What one worker loop observed. Single-threaded by design: each in-flight loop owns one, and the
/// slice merges them at the end, so recording takes no locks. Memory is fixed (histogram) plus one
/// entry per second of run time, never per request.
/// </summary>
public sealed class WorkerRecorder
{
    private readonly long[] _byOutcome = new long[Enum.GetValues<Outcome>().Length];
    private readonly Dictionary<long, (long Ops, long Units)> _timeline = [];
    private readonly long _anchorUnixTicks;
    private readonly long _anchorTimestamp;
    private readonly bool _recordLatency;

    /// <param name="recordLatency">False for requests of another kind (a blob commit) that count but must not mix into the histogram.</param>
    public WorkerRecorder(long anchorUnixTicks, long anchorTimestamp, bool recordLatency = true)
    {
        _anchorUnixTicks = anchorUnixTicks;
        _anchorTimestamp = anchorTimestamp;
        _recordLatency = recordLatency;
    }

    /// <summary>Latency of successful requests only: fast 503s would otherwise pull percentiles down.</summary>
    public LongHistogram Latency { get; } = LatencyHistograms.Create();

    public long Units { get; private set; }

    /// <summary>Records one finished request that started at <paramref name="startTimestamp"/> (Stopwatch ticks).</summary>
    public void Record(Outcome outcome, long startTimestamp, long units)
    {
        long end = Stopwatch.GetTimestamp();
        _byOutcome[(int)outcome]++;
        if (outcome != Outcome.Succeeded)
        {
            return;
        }
        if (_recordLatency)
        {
            long micros = (end - startTimestamp) * 1_000_000 / Stopwatch.Frequency;
            Latency.RecordValue(Math.Clamp(micros, 1, LatencyHistograms.HighestTrackableMicros));
        }
        Units += units;
        long second = (_anchorUnixTicks + (end - _anchorTimestamp) * TimeSpan.TicksPerSecond / Stopwatch.Frequency) / TimeSpan.TicksPerSecond;
        _timeline.TryGetValue(second, out var bucket);
        _timeline[second] = (bucket.Ops + 1, bucket.Units + units);
    }

    public long[] CountsByOutcome => _byOutcome;

    public IEnumerable<KeyValuePair<long, (long Ops, long Units)>> Timeline => _timeline;
}
