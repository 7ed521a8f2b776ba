using System.Diagnostics;

namespace StorageBench.Engine.Measurement;

/// <summary>
/// What one slice measured, in a serializable form that crosses the orchestration boundary.
/// Units are entities (table) or bytes staged (blob); Objects are committed blobs.
/// Started/Ended bound the measured requests (warm-up excluded).
/// </summary>
public sealed record SliceResult
{
    /// <summary>The run (or sweep step) whose table/container this slice wrote to.</summary>
    public required string StepId { get; init; }
    public required string Workload { get; init; }
    public required int SliceIndex { get; init; }
    /// <summary>Which configured target account the slice wrote to.</summary>
    public int TargetIndex { get; init; }
    public required string Host { get; init; }
    public required DateTime StartedUtc { get; init; }
    public required DateTime EndedUtc { get; init; }
    /// <summary>How late the slice passed the synchronized start (0 when on time): preflight or scheduling too slow for startDelaySeconds.</summary>
    public double StartLagSeconds { get; init; }
    public required OutcomeCounts Counts { get; init; }
    public required long Units { get; init; }
    public long WarmupOperations { get; init; }
    public long WarmupUnits { get; init; }
    public long Objects { get; init; }
    /// <summary>HdrHistogram of successful-request latency in microseconds, compressed and base64-encoded.</summary>
    public required string LatencyHistogram { get; init; }
    public required TimelinePoint[] Timeline { get; init; }
    /// <summary>The driver process and its total CPU time at slice start and end, to derive CPU per operation.</summary>
    public int ProcessId { get; init; }
    public double ProcessCpuSecondsAtStart { get; init; }
    public double ProcessCpuSecondsAtEnd { get; init; }
    /// <summary>Blob only: MD5 (base64) of the content every blob of this slice was given.</summary>
    public string? ContentMd5 { get; init; }

    /// <summary>Merges worker recorders into one slice result.</summary>
    public static SliceResult FromWorkers(string stepId, string workload, int sliceIndex, int targetIndex, double cpuSecondsAtStart, IReadOnlyCollection<WorkerRecorder> workers,
        long objects = 0, string? contentMd5 = null)
    {
        var histogram = LatencyHistograms.Create();
        var counts = new long[Enum.GetValues<Outcome>().Length];
        var timeline = new SortedDictionary<long, (long Ops, long Units)>();
        foreach (var w in workers)
        {
            histogram.Add(w.Latency);
            for (int i = 0; i < counts.Length; i++)
            {
                counts[i] += w.CountsByOutcome[i];
            }
            foreach (var (second, b) in w.Timeline)
            {
                timeline.TryGetValue(second, out var t);
                timeline[second] = (t.Ops + b.Ops, t.Units + b.Units);
            }
        }
        var measured = workers.Where(w => w.FirstMeasuredStart != 0).ToList();
        var any = workers.First();
        long first = measured.Count > 0 ? measured.Min(w => w.FirstMeasuredStart) : Stopwatch.GetTimestamp();
        long last = measured.Count > 0 ? measured.Max(w => w.LastMeasuredEnd) : first;
        using var process = Process.GetCurrentProcess();
        return new SliceResult
        {
            StepId = stepId,
            Workload = workload,
            SliceIndex = sliceIndex,
            TargetIndex = targetIndex,
            Host = Environment.MachineName,
            StartedUtc = new DateTime(DateTime.UnixEpoch.Ticks + any.ToUnixTicks(first), DateTimeKind.Utc),
            EndedUtc = new DateTime(DateTime.UnixEpoch.Ticks + any.ToUnixTicks(last), DateTimeKind.Utc),
            Counts = OutcomeCounts.FromArray(counts),
            Units = workers.Sum(w => w.Units),
            WarmupOperations = workers.Sum(w => w.WarmupOperations),
            WarmupUnits = workers.Sum(w => w.WarmupUnits),
            Objects = objects,
            LatencyHistogram = LatencyHistograms.Encode(histogram),
            Timeline = [.. timeline.Select(kv => new TimelinePoint(kv.Key, kv.Value.Ops, kv.Value.Units))],
            ProcessId = Environment.ProcessId,
            ProcessCpuSecondsAtStart = cpuSecondsAtStart,
            ProcessCpuSecondsAtEnd = process.TotalProcessorTime.TotalSeconds,
            ContentMd5 = contentMd5,
        };
    }

    public static double ProcessCpuSeconds()
    {
        using var process = Process.GetCurrentProcess();
        return process.TotalProcessorTime.TotalSeconds;
    }
}
