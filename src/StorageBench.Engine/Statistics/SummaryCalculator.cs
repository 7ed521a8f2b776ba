using HdrHistogram;

namespace StorageBench.Engine.Statistics;

/// <summary>Fan-in maths: merges slice histograms and timelines into one workload summary. Pure and deterministic.</summary>
public static class SummaryCalculator
{
    /// <summary>What the slices' priming met, summed.</summary>
    public static PrimingOutcomes PrimingOf(IReadOnlyList<SliceResult> slices) =>
        new(slices.Sum(s => s.Requests.PrimingRequests), slices.Sum(s => s.Requests.PrimingThrottled), slices.Sum(s => s.Requests.PrimingFailed));

    /// <summary>The work planned and stored, and the share not stored (judged against maxUnstoredShare).</summary>
    public static WorkloadSummary Complete(WorkloadSummary w, long planned, long stored) => w with
    {
        Planned = planned,
        Stored = stored,
        UnstoredShare = planned > 0 ? Math.Max(0, 1 - (double)stored / planned) : 0,
    };

    /// <summary>
    /// Why a step whose workloads measured nothing is not a result: one line per workload with no measured request (every
    /// request was warm-up, or none was sent), naming the workload and the warm-up settings. Empty when each measured
    /// something, and for a canceled step (it stopped early; its status says so). A step with a line here is Failed.
    /// </summary>
    public static IEnumerable<string> NothingMeasured(IEnumerable<WorkloadSummary> workloads, bool canceled = false) =>
        canceled ? [] : workloads.Select(NothingMeasured).OfType<string>();

    /// <summary>The line for one workload with no measured request (see above); null when it measured something.</summary>
    public static string? NothingMeasured(WorkloadSummary w)
    {
        // Every measured request either succeeded (a latency sample) or failed; blob commits are never timed, so a blob
        // workload whose measured requests were all successful commits measured no Put Block either.
        if (w.LatencyMs.Samples > 0 || w.Failed > 0)
        {
            return null;
        }
        string requests = WorkloadKind.Find(w.Workload)?.Request ?? "request";
        return w.WarmupOperations > 0
            ? $"{w.Workload}: no {requests} was measured: all {w.WarmupOperations:N0} were warm-up (warmupOperations / warmupSeconds leave nothing to measure); a run that measured nothing is not a result"
            : $"{w.Workload}: no {requests} was measured: none was sent; a run that measured nothing is not a result";
    }

    /// <summary>Equal-width bins of <see cref="WorkloadSummary.LatencyDistribution"/> (min to p99.9); a bin after them is the tail.</summary>
    public const int HistogramBins = 40;

    /// <summary>Buckets in a summary's timeline: per second for runs up to this long, wider buckets for longer ones.</summary>
    public const int MaxTimelineBuckets = 300;

    /// <summary>
    /// The figures every workload has: outcomes, merged latency, service time and lag histograms, the timeline and its
    /// all-slices-active window, the peak, CPU per unit and the slices' spread, in the units its <paramref name="kind"/> declares
    /// (<see cref="WorkloadKind.CountedUnit"/> counted, <see cref="WorkloadKind.Unit"/> per second); a room adds its own figures to what this returns.
    /// </summary>
    public static WorkloadSummary Summarize(WorkloadKind kind, string measures, IReadOnlyList<SliceResult> slices, VerificationResult verified, int entitySizeBytes = 0)
    {
        var counts = OutcomeCounts.Sum(slices.Select(s => s.Counts));
        var histogram = LatencyHistograms.Merge(slices.Select(s => s.LatencyHistogram));
        // A closed-loop slice sends no service-time histogram: its latency is its service time.
        var serviceTime = LatencyHistograms.Merge(slices.Select(s => s.ServiceTimeHistogram ?? s.LatencyHistogram));
        var lag = slices.Any(s => s.LagHistogram is not null) ? LatencyHistograms.Merge(slices.Select(s => s.LagHistogram).OfType<string>()) : null;
        var start = slices.Min(s => s.StartedUtc);
        var end = slices.Max(s => s.EndedUtc);
        // A pause every slice shared (a resumed run's segments re-ran later) measured nothing: it is no part of the duration.
        double paused = slices.Min(s => s.PausedSeconds);
        double duration = (end - start).TotalSeconds - paused;
        long units = slices.Sum(s => s.Units);
        // At the finest resolution every slice has (1 s unless a slice outgrew its per-second budget).
        var timeline = Timeline.Merge(slices.Select(s => s.Timeline));
        int w = timeline.BucketSeconds;

        // Whole buckets in which every slice was running: a slice that starts late or ends early
        // would otherwise dilute (or flatter) the steady-state rate.
        long windowFirst = CeilTo(slices.Max(s => s.StartedUtc), w);
        long windowEnd = FloorTo(slices.Min(s => s.EndedUtc), w);
        double windowSeconds = Math.Max(0, windowEnd - windowFirst);
        Throughput? allActive = null;
        RateSpread? spread = null;
        if (windowSeconds >= 1)
        {
            var inWindow = timeline.Points().Where(p => p.UnixSecond >= windowFirst && p.UnixSecond < windowEnd).ToList();
            allActive = Rates(kind, inWindow.Sum(p => p.Operations), inWindow.Sum(p => p.Units), Math.Max(1, windowSeconds - paused), entitySizeBytes);
            spread = Spread(inWindow, windowFirst, (int)(windowSeconds / w), w, kind.CountedPerUnit);
        }

        // Peak: only buckets the measured window covers whole; a partly covered edge bucket would understate it.
        long fullFirst = CeilTo(start, w), fullEnd = FloorTo(end, w);
        var full = timeline.Points().Where(p => p.UnixSecond >= fullFirst && p.UnixSecond + w <= fullEnd).ToList();
        double? peakUnits = full.Count == 0 ? null : full.Max(p => p.Units) / (double)w;
        double cpu = ClientCpuSeconds(slices);
        long allUnits = units + slices.Sum(s => s.WarmupUnits);
        var rates = slices.Select(s => UnitsPerSecond(s, kind)).Order().ToList();
        return kind.WithUnits(new WorkloadSummary
        {
            Workload = kind.Name,
            Measures = measures,
            Slices = slices.Count,
            Operations = counts.Operations,
            Succeeded = counts.Succeeded,
            Failed = counts.Failed,
            Throttled = counts.Throttled,
            TimedOut = counts.TimedOut,
            ServerErrors = counts.ServerErrors,
            ClientErrors = counts.ClientErrors,
            NetworkErrors = counts.NetworkErrors,
            WarmupOperations = slices.Sum(s => s.WarmupOperations),
            ClientCpuSeconds = cpu,
            LatencyDistribution = Distribution(histogram, HistogramBins),
            SliceSpread = new SliceSpread(rates[0], Robust.Median(rates), rates[^1], slices.Max(s => s.StartLagSeconds))
            {
                RerunSlices = slices.Count(s => s.Rerun), WaitedSlices = slices.Count(s => s.WaitedForWorker),
                FirstRunsMaxStartLagSeconds = slices.Where(s => !s.Rerun && !s.WaitedForWorker).Select(s => s.StartLagSeconds).DefaultIfEmpty().Max(),
            },
            SliceAttempts = SliceExecutions.Attempts(slices),
            DurationSeconds = duration,
            Drift = DriftFigure.Of(slices, timeline, kind.CountedPerUnit, (points, from, buckets) => Spread(points, from, buckets, w, kind.CountedPerUnit)),
            Throughput = Rates(kind, counts.Succeeded, units, duration, entitySizeBytes),
            AllSlicesActiveThroughput = allActive,
            AllSlicesActiveSeconds = windowSeconds,
            PerSecondSpread = spread,
            PeakPerSecond = peakUnits / kind.CountedPerUnit,
            PeakUnit = kind.RateUnit,
            PeakWindowSeconds = w,
            LatencyMs = Latency(histogram),
            ServiceTimeMs = Latency(serviceTime),
            ScheduleLag = lag is null ? null : Lag(lag, slices.Sum(s => s.DroppedOperations)),
            Verified = verified,
            Timeline = timeline.Fit(MaxTimelineBuckets),
            LatencyHistogram = LatencyHistograms.Encode(histogram, LatencyHistograms.Compact),
            // In a closed loop it is the latency histogram: carried once, so a long run's result stays within the payload budget.
            ServiceTimeHistogram = slices.All(s => s.ServiceTimeHistogram is null) ? null : LatencyHistograms.Encode(serviceTime, LatencyHistograms.Compact),
        }, units, allUnits > 0 ? cpu * 1e6 / (allUnits / kind.CountedPerUnit) : null);
    }

    /// <summary>An open loop's lag behind its schedule, from the merged histogram of every measured request's lag (µs).</summary>
    public static ScheduleLag Lag(HistogramBase lag, long dropped)
    {
        var l = Latency(lag);
        long lateAbove = (long)(ScheduleLag.LateMs * 1000);
        // Below 2,048 µs each bucket holds one value: "more than 1 ms" is exact.
        long late = lag.RecordedValues().Where(v => lag.LowestEquivalentValue(v.ValueIteratedTo) > lateAbove).Sum(v => v.CountAtValueIteratedTo);
        return new ScheduleLag(lag.TotalCount, l.P99, l.Max, late, dropped);
    }

    /// <summary>
    /// Mean and second-to-second deviation (from successive differences, see <see cref="RateSpread"/>) of
    /// the per-bucket rates over the all-slices-active window (<paramref name="buckets"/> of them; a bucket
    /// with no success is a zero); null under two buckets.
    /// </summary>
    private static RateSpread? Spread(IReadOnlyList<TimelinePoint> inWindow, long firstSecond, int buckets, int width, double unitDivisor)
    {
        if (buckets < 2)
        {
            return null;
        }
        var units = inWindow.ToDictionary(p => p.UnixSecond, p => p.Units);
        // In time order, a bucket the merged timeline lacks (no success) as a zero.
        var rates = Enumerable.Range(0, buckets).Select(i => units.GetValueOrDefault(firstSecond + (long)i * width) / (double)width / unitDivisor).ToList();
        double squaredSteps = rates.Zip(rates.Skip(1), (a, b) => (b - a) * (b - a)).Sum();
        return new RateSpread(rates.Average(), Math.Sqrt(squaredSteps / (2.0 * (buckets - 1))), buckets);
    }

    /// <summary>A slice's own rate in its kind's unit (entities/s, MB/s) over its measured window.</summary>
    public static double UnitsPerSecond(SliceResult s, WorkloadKind kind)
    {
        double seconds = (s.EndedUtc - s.StartedUtc).TotalSeconds;
        return seconds > 0 ? s.Units / seconds / kind.CountedPerUnit : 0;
    }

    public static LatencySummary Latency(HistogramBase h)
    {
        if (h.TotalCount == 0)
        {
            // A percentile of no samples does not exist: null, never a 0 a filter or a chart would take for fast.
            return new LatencySummary(0, null, null, null, null, null, null, null, null, null, null);
        }
        // The histogram keeps 3 significant digits: a sample is known to lie in a bucket of equivalent values. Each figure is
        // the bucket's highest value, so none understates the request it stands for (by at most 0.1 % it may overstate).
        double Ms(long micros) => h.HighestEquivalentValue(micros) / 1000.0;
        double P(double percentile) => Ms(h.GetValueAtPercentile(percentile));
        return new LatencySummary(h.TotalCount, Ms(h.RecordedValues().First().ValueIteratedTo), P(50), h.GetMean() / 1000.0,
            P(70), P(80), P(90), P(95), P(99), P(99.9), Ms(h.GetMaxValue()));
    }

    /// <summary>
    /// CPU of each driver process from its first slice start to its last slice end, summed over
    /// processes. Slices sharing a process overlap in time, so summing per slice would count twice.
    /// </summary>
    public static double ClientCpuSeconds(IEnumerable<SliceResult> slices) =>
        slices.GroupBy(s => (s.Host, s.ProcessId))
            .Sum(g => Math.Max(0, g.Max(s => s.ProcessCpuSecondsAtEnd) - g.Min(s => s.ProcessCpuSecondsAtStart)));

    /// <summary>Equal-width bins from min to p99.9 (the seeds' right-skewed plots), plus one bin for the tail up to max.</summary>
    public static IReadOnlyList<LatencyBin> Distribution(HistogramBase h, int bins)
    {
        if (h.TotalCount == 0)
        {
            return [];
        }
        long min = h.LowestEquivalentValue(h.RecordedValues().First().ValueIteratedTo);
        long top = Math.Max(min + bins, h.GetValueAtPercentile(99.9));
        long max = h.GetMaxValue();
        double width = (top - min) / (double)bins;
        var counts = new long[bins + 1];
        foreach (var v in h.RecordedValues())
        {
            long value = h.LowestEquivalentValue(v.ValueIteratedTo);
            int bin = value >= top ? bins : (int)Math.Min(bins - 1, (value - min) / width);
            counts[bin] += v.CountAtValueIteratedTo;
        }
        var result = new List<LatencyBin>(bins + 1);
        for (int i = 0; i < bins; i++)
        {
            result.Add(new LatencyBin((min + i * width) / 1000.0, (min + (i + 1) * width) / 1000.0, counts[i]));
        }
        if (counts[bins] > 0)
        {
            result.Add(new LatencyBin(top / 1000.0, (max + 1) / 1000.0, counts[bins]));
        }
        return result;
    }

    /// <summary>Operations and units per second in the fields of the kind's unit: entities/s and KB/s, or MB/s and Mbps (decimal units).</summary>
    public static Throughput Rates(WorkloadKind kind, long operations, long units, double seconds, int entitySizeBytes = 0) => seconds <= 0
        ? kind.ThroughputOf(0, 0, entitySizeBytes)
        : kind.ThroughputOf(operations / seconds, units / seconds / kind.CountedPerUnit, entitySizeBytes);

    /// <summary>The first Unix second at or after <paramref name="utc"/> that is a multiple of <paramref name="width"/>.</summary>
    internal static long CeilTo(DateTime utc, int width)
    {
        long ticks = (long)width * TimeSpan.TicksPerSecond;
        return (utc.Ticks - DateTime.UnixEpoch.Ticks + ticks - 1) / ticks * width;
    }

    internal static long FloorTo(DateTime utc, int width) => (utc.Ticks - DateTime.UnixEpoch.Ticks) / ((long)width * TimeSpan.TicksPerSecond) * width;
}
