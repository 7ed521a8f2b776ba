using HdrHistogram;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads;

namespace StorageBench.Engine.Statistics;

/// <summary>Fan-in maths: merges slice histograms and timelines into one workload summary. Pure and deterministic.</summary>
public static class SummaryCalculator
{
    public static WorkloadSummary SummarizeTable(TableInsertSpec spec, IReadOnlyList<SliceResult> slices, VerificationResult verified)
    {
        string op = spec.BatchSize == 1 ? "single-entity insert" : $"entity group transaction of up to {spec.BatchSize} entities";
        return Summarize(TableInsertWorkload.Name, $"operation = one {op} ({spec.EntitySizeBytes} B entities); latency = successful requests",
            slices, verified, unitsAreEntities: true, entitySizeBytes: spec.EntitySizeBytes);
    }

    public static WorkloadSummary SummarizeBlob(BlobUploadSpec spec, IReadOnlyList<SliceResult> slices, VerificationResult verified) =>
        Summarize(BlobUploadWorkload.Name, $"operation = one Put Block ({spec.BlockSizeBytes} B) or Put Block List; latency = successful Put Block requests",
            slices, verified, unitsAreEntities: false, entitySizeBytes: 0);

    private static WorkloadSummary Summarize(string workload, string measures, IReadOnlyList<SliceResult> slices, VerificationResult verified,
        bool unitsAreEntities, int entitySizeBytes)
    {
        var counts = OutcomeCounts.Sum(slices.Select(s => s.Counts));
        var histogram = LatencyHistograms.Merge(slices.Select(s => s.LatencyHistogram));
        var start = slices.Min(s => s.StartedUtc);
        var end = slices.Max(s => s.EndedUtc);
        double duration = (end - start).TotalSeconds;
        long units = slices.Sum(s => s.Units);
        var timeline = MergeTimelines(slices);

        // Whole UTC seconds in which every slice was running: a slice that starts late or ends early
        // would otherwise dilute (or flatter) the steady-state rate.
        long windowFirst = CeilSecond(slices.Max(s => s.StartedUtc));
        long windowEnd = FloorSecond(slices.Min(s => s.EndedUtc));
        double windowSeconds = Math.Max(0, windowEnd - windowFirst);
        Throughput? allActive = null;
        if (windowSeconds >= 1)
        {
            var inWindow = timeline.Where(p => p.UnixSecond >= windowFirst && p.UnixSecond < windowEnd).ToList();
            allActive = Rates(inWindow.Sum(p => p.Operations), inWindow.Sum(p => p.Units), windowSeconds, unitsAreEntities, entitySizeBytes);
        }

        // Peak: only seconds the measured window covers whole; a partly covered edge second would understate it.
        long fullFirst = CeilSecond(start), fullEnd = FloorSecond(end);
        var fullSeconds = timeline.Where(p => p.UnixSecond >= fullFirst && p.UnixSecond < fullEnd).ToList();
        double? peakUnits = fullSeconds.Count == 0 ? null : fullSeconds.Max(p => p.Units);
        double cpu = ClientCpuSeconds(slices);
        long allUnits = units + slices.Sum(s => s.WarmupUnits);
        return new WorkloadSummary
        {
            Workload = workload,
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
            Entities = unitsAreEntities ? units : null,
            Bytes = unitsAreEntities ? null : units,
            BlobsCommitted = unitsAreEntities ? null : slices.Sum(s => s.Objects),
            WarmupOperations = slices.Sum(s => s.WarmupOperations),
            ClientCpuSeconds = cpu,
            ClientCpuMicrosecondsPerEntity = unitsAreEntities && allUnits > 0 ? cpu * 1e6 / allUnits : null,
            ClientCpuMicrosecondsPerMegabyte = !unitsAreEntities && allUnits > 0 ? cpu * 1e6 / (allUnits / 1e6) : null,
            LatencyDistribution = Distribution(histogram, bins: 40),
            PerSlice = [.. slices.OrderBy(s => s.SliceIndex).Select(s => SliceSummaryOf(s, unitsAreEntities))],
            DurationSeconds = duration,
            Throughput = Rates(counts.Succeeded, units, duration, unitsAreEntities, entitySizeBytes),
            AllSlicesActiveThroughput = allActive,
            AllSlicesActiveSeconds = windowSeconds,
            PeakPerSecond = unitsAreEntities ? peakUnits : peakUnits / 1e6,
            PeakUnit = unitsAreEntities ? "entities/s" : "MB/s",
            LatencyMs = Latency(histogram),
            Verified = verified,
            Timeline = timeline,
            LatencyHistogram = LatencyHistograms.Encode(histogram),
        };
    }

    private static SliceSummary SliceSummaryOf(SliceResult s, bool unitsAreEntities)
    {
        double seconds = (s.EndedUtc - s.StartedUtc).TotalSeconds;
        double perSecond = seconds > 0 ? s.Units / seconds / (unitsAreEntities ? 1 : 1e6) : 0;
        return new SliceSummary(s.SliceIndex, s.TargetIndex, s.Host, s.Counts.Operations, s.Counts.Succeeded, s.Counts.Throttled, s.Counts.Failed, s.Units,
            seconds, perSecond, s.StartLagSeconds, Latency(LatencyHistograms.Decode(s.LatencyHistogram)));
    }

    public static LatencySummary Latency(HistogramBase h)
    {
        if (h.TotalCount == 0)
        {
            return new LatencySummary(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        }
        static double Ms(long micros) => micros / 1000.0;
        double P(double percentile) => Ms(h.GetValueAtPercentile(percentile));
        return new LatencySummary(h.TotalCount, Ms(h.LowestEquivalentValue(h.RecordedValues().First().ValueIteratedTo)), P(50), h.GetMean() / 1000.0,
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

    /// <summary>Per-second totals across slices, with every second from the first to the last present (a stall shows as zeros).</summary>
    public static IReadOnlyList<TimelinePoint> MergeTimelines(IEnumerable<SliceResult> slices)
    {
        var bySecond = slices.SelectMany(s => s.Timeline)
            .GroupBy(p => p.UnixSecond)
            .ToDictionary(g => g.Key, g => new TimelinePoint(g.Key, g.Sum(p => p.Operations), g.Sum(p => p.Units)));
        if (bySecond.Count == 0)
        {
            return [];
        }
        long first = bySecond.Keys.Min(), last = bySecond.Keys.Max();
        var timeline = new List<TimelinePoint>((int)(last - first + 1));
        for (long second = first; second <= last; second++)
        {
            timeline.Add(bySecond.GetValueOrDefault(second) ?? new TimelinePoint(second, 0, 0));
        }
        return timeline;
    }

    private static Throughput Rates(long operations, long units, double seconds, bool unitsAreEntities, int entitySizeBytes)
    {
        if (seconds <= 0)
        {
            return new Throughput(0, unitsAreEntities ? 0 : null, unitsAreEntities ? 0 : null, unitsAreEntities ? null : 0, unitsAreEntities ? null : 0);
        }
        double ops = operations / seconds;
        if (unitsAreEntities)
        {
            double perSecond = units / seconds;
            return new Throughput(ops, perSecond, perSecond * entitySizeBytes / 1000.0, null, null);
        }
        double mbps = units / seconds / 1e6;
        return new Throughput(ops, null, null, mbps, mbps * 8);
    }

    private static long CeilSecond(DateTime utc) => (utc.Ticks - DateTime.UnixEpoch.Ticks + TimeSpan.TicksPerSecond - 1) / TimeSpan.TicksPerSecond;

    private static long FloorSecond(DateTime utc) => (utc.Ticks - DateTime.UnixEpoch.Ticks) / TimeSpan.TicksPerSecond;
}
