namespace StorageBench.Engine.Measurement;

/// <summary>
/// What one slice measured, in a serializable form that crosses the orchestration boundary.
/// Units are entities (table) or bytes staged (blob); Objects/ObjectUnits are committed blobs and their bytes.
/// </summary>
public sealed record SliceResult
{
    public required string Workload { get; init; }
    public required int SliceIndex { get; init; }
    public required string Host { get; init; }
    public required DateTime StartedUtc { get; init; }
    public required DateTime EndedUtc { get; init; }
    public required OutcomeCounts Counts { get; init; }
    public required long Units { get; init; }
    public long Objects { get; init; }
    public long ObjectUnits { get; init; }
    /// <summary>HdrHistogram of successful-request latency in microseconds, compressed and base64-encoded.</summary>
    public required string LatencyHistogram { get; init; }
    public required TimelinePoint[] Timeline { get; init; }

    /// <summary>Merges worker recorders into one slice result.</summary>
    public static SliceResult FromWorkers(string workload, int sliceIndex, DateTime startedUtc, DateTime endedUtc,
        IReadOnlyCollection<WorkerRecorder> workers, long objects = 0, long objectUnits = 0)
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
        return new SliceResult
        {
            Workload = workload,
            SliceIndex = sliceIndex,
            Host = Environment.MachineName,
            StartedUtc = startedUtc,
            EndedUtc = endedUtc,
            Counts = OutcomeCounts.FromArray(counts),
            Units = workers.Sum(w => w.Units),
            Objects = objects,
            ObjectUnits = objectUnits,
            LatencyHistogram = LatencyHistograms.Encode(histogram),
            Timeline = [.. timeline.Select(kv => new TimelinePoint(kv.Key, kv.Value.Ops, kv.Value.Units))],
        };
    }
}
