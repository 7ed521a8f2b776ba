using HdrHistogram;
namespace StorageBench.Engine.Measurement;

/// <summary>
/// What one running slice last published about itself (about once a second): its counts so far,
/// its current rate, and how much it set out to do (planned units in count mode, else its duration).
/// </summary>
/// <param name="Latency">The slice's latency histogram so far, encoded (LatencyHistograms); null before its first success.</param>
public sealed record SliceProgress(string StepId, string Workload, int Slice, LiveCounts Counts, double UnitsPerSecond,
    long PlannedUnits, double DurationSeconds, DateTime StartAtUtc, DateTime UpdatedUtc, bool Done, string? Latency = null)
{
    /// <summary>The worker (machine/process id) running the slice's execution that wrote this row.</summary>
    public string? Worker { get; init; }

    /// <summary>The segment of a longer slice this execution runs; null when the slice runs whole.</summary>
    public int? Segment { get; init; }

    /// <summary>
    /// Whether this row, found before an execution starts, is an earlier execution of the same work that never handed back its
    /// result: any row, unless it is the finished segment before this one.
    /// </summary>
    public bool IsLostExecutionOf(SliceProgress next) => !(Done && Segment is { } done && next.Segment > done);
}

/// <summary>
/// Latency of the successful measured requests so far, from the exact merge of every reporting slice's histogram
/// (percentiles are never averaged across slices). Samples says how many requests stand behind it; a percentile that
/// so few samples cannot support (PercentileSupport: p99 needs 1,000) is null, not shown as a figure.
/// </summary>
public sealed record LiveLatency(long Samples, double? P50Ms, double? P90Ms, double? P99Ms, double MaxMs)
{
    // One merge target for every read (progress is read each second while a run goes on): a histogram of its own per
    // read was a 188 KB counts array on the large object heap each time.
    private static readonly Lock MergeLock = new();
    private static LatencyHistogram? _merged;

    public static LiveLatency? Of(IEnumerable<string?> encoded)
    {
        var parts = encoded.OfType<string>().ToList();
        if (parts.Count == 0)
        {
            return null;
        }
        lock (MergeLock)
        {
            var merged = _merged ??= LatencyHistograms.Create();
            merged.Reset();
            foreach (var part in parts)
            {
                LatencyHistograms.AddTo(merged, part);
            }
            // The highest value of each bucket, as in the summary: a figure never understates the requests it stands for.
            double? P(double q) => Statistics.PercentileSupport.Supports(merged.TotalCount, q) ? Ms(merged.HighestEquivalentValue(merged.GetValueAtPercentile(q * 100))) : null;
            return merged.TotalCount == 0 ? null : new LiveLatency(merged.TotalCount, P(0.5), P(0.9), P(0.99), Ms(merged.HighestEquivalentValue(merged.GetValueAtPercentile(100))));
        }
    }

    private static double Ms(long micros) => Math.Round(micros / 1000.0, 3);
}

/// <summary>
/// A workload's progress across its slices: done / total (count mode) or elapsed / duration, the
/// current rate, throttled and failed requests. Units are entities, or bytes staged for blobs.
/// </summary>
public sealed record WorkloadProgress(string Workload, string Unit, long Units, long PlannedUnits, double ElapsedSeconds, double DurationSeconds,
    double UnitsPerSecond, long Operations, long Throttled, long Failed, int SlicesReporting, int SlicesDone, LiveLatency? LatencyMs = null)
{
    /// <summary>The workload's units and how they are shown (the dashboard reads them here, with the figures).</summary>
    public WorkloadKind? Kind => WorkloadKind.Find(Workload);

    /// <summary>A slice silent this long is not running any more (it died or ended without a last word): its rate no longer counts.</summary>
    public static readonly TimeSpan Stale = TimeSpan.FromSeconds(5);

    /// <summary>Null when no slice of the workload has reported yet.</summary>
    public static WorkloadProgress? Of(IEnumerable<SliceProgress> slices, string workload, DateTime nowUtc)
    {
        var mine = slices.Where(s => s.Workload == workload).ToList();
        if (mine.Count == 0)
        {
            return null;
        }
        var counts = mine.Aggregate(default(LiveCounts), (sum, s) => sum + s.Counts);
        var start = mine.Min(s => s.StartAtUtc);
        double duration = mine.Max(s => s.DurationSeconds);
        double sending = SendingSeconds(mine, start, duration, nowUtc);
        // Once every slice is done none sends, so the current rate would read 0: the workload's own rate over its sending seconds is shown.
        // So too while no running slice has reported lately (on a loaded machine their progress writes come late or are
        // skipped): their counts still grow, and 0/s beside them would say the run stalled.
        var fresh = mine.Where(s => !s.Done && nowUtc - s.UpdatedUtc < Stale).ToList();
        double rate = mine.All(s => s.Done) || fresh.Count == 0
            ? (sending > 0 ? counts.Units / sending : 0)
            : fresh.Sum(s => s.UnitsPerSecond);
        return new WorkloadProgress(workload, WorkloadKind.Of(workload).CountedUnit, counts.Units, mine.Sum(s => s.PlannedUnits),
            sending, duration, rate, counts.Operations, counts.Throttled, counts.Failed, mine.Count, mine.Count(s => s.Done), LiveLatency.Of(mine.Select(s => s.Latency)));
    }

    /// <summary>
    /// Seconds of the workload's sending since its start instant. It stops when it ends: when every slice is done (finished or
    /// canceled: its last report), and in duration mode at the planned duration, when the slices stop sending; a run that goes on
    /// verifying and storing its result does not make it grow past what the slices did.
    /// </summary>
    private static double SendingSeconds(List<SliceProgress> slices, DateTime start, double durationSeconds, DateTime nowUtc)
    {
        var end = slices.All(s => s.Done) ? slices.Max(s => s.UpdatedUtc) : nowUtc;
        double elapsed = Math.Max(0, (end - start).TotalSeconds);
        return durationSeconds > 0 ? Math.Min(elapsed, durationSeconds) : elapsed;
    }
}
