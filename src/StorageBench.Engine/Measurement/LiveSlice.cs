namespace StorageBench.Engine.Measurement;

/// <summary>Measured requests so far (warm-up excluded): units are entities, or bytes staged for blobs.</summary>
public readonly record struct LiveCounts(long Operations, long Units, long Throttled, long Failed)
{
    public static LiveCounts operator +(LiveCounts a, LiveCounts b) =>
        new(a.Operations + b.Operations, a.Units + b.Units, a.Throttled + b.Throttled, a.Failed + b.Failed);

    /// <summary>A result's measured requests as progress counts them: every request, commits included; units without them.</summary>
    public static LiveCounts Of(SliceResult? result) => result is null ? default
        : new(result.Counts.Operations, result.Units, result.Counts.Throttled, result.Counts.Failed);
}

/// <summary>
/// A running slice as its progress publisher sees it: the workers' own recorders, summed on demand
/// about once a second. The hot path pays nothing for progress: no shared counter, no lock.
/// </summary>
/// <param name="before">A later segment of a slice: the segments before it, so its progress is the slice's since its start.</param>
public sealed class LiveSlice(LiveCounts before = default)
{
    private WorkerRecorder[] _workers = [];
    private WorkerRecorder? _countOnly;

    // One merge target for every read (a histogram is ~190 KB of counts), and the last encoding with the count it had.
    private readonly Lock _latencyLock = new();
    private LatencyHistogram? _merged;
    private (long Count, string? Encoded) _lastLatency;

    // The figures at the end, once the recorders are let go (Release); null while they record.
    private Final? _final;

    private sealed record Final(LiveCounts Counts, string? Latency);

    /// <param name="countOnly">A recorder whose requests count but whose units are not progress (a blob's commits).</param>
    public void Watch(WorkerRecorder[] workers, WorkerRecorder? countOnly = null)
    {
        lock (_latencyLock)
        {
            Volatile.Write(ref _countOnly, countOnly);
            Volatile.Write(ref _workers, workers);
            _lastLatency = default;
        }
    }

    /// <summary>
    /// The slice's latency histogram so far (successful measured requests), encoded for its progress row; null before
    /// the first sample. Read while the workers record, so a snapshot may miss a sample in flight; the run's figures come
    /// from the workers' own histograms at the end, not from this.
    /// </summary>
    public string? ReadLatency()
    {
        lock (_latencyLock)
        {
            if (_final is { } final)
            {
                return final.Latency;
            }
            var workers = Volatile.Read(ref _workers);
            // A slice that recorded nothing since the last read (a slow open loop, or one that waits) is not merged again.
            long count = 0;
            foreach (var worker in workers)
            {
                count += worker.Latency.TotalCount;
            }
            if (count != _lastLatency.Count)
            {
                var merged = _merged ??= LatencyHistograms.Pool.Get();
                merged.Reset();
                foreach (var worker in workers)
                {
                    merged.Add(worker.Latency);
                }
                _lastLatency = (merged.TotalCount, merged.TotalCount == 0 ? null : LatencyHistograms.EncodeForProgress(merged));
            }
            return _lastLatency.Encoded;
        }
    }

    /// <summary>
    /// Takes the workers' last counts and latency as the slice's own and lets go of their recorders, whose histograms go back
    /// to the pool for the next execution: what is read after is the slice's figures at its end.
    /// </summary>
    public void Release()
    {
        lock (_latencyLock)
        {
            string? latency = ReadLatency();
            var counts = Read();
            Volatile.Write(ref _workers, []);
            Volatile.Write(ref _countOnly, null);
            Volatile.Write(ref _final, new Final(counts, latency));
            if (_merged is { } merged)
            {
                LatencyHistograms.Pool.Return(merged);
                _merged = null;
            }
        }
    }

    public LiveCounts Read()
    {
        if (Volatile.Read(ref _final) is { } final)
        {
            return final.Counts;
        }
        var total = before + (Volatile.Read(ref _countOnly)?.Live(withUnits: false) ?? default);
        foreach (var worker in Volatile.Read(ref _workers))
        {
            total += worker.Live();
        }
        return total;
    }
}
