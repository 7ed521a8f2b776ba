using StorageBench.Engine.Measurement;

namespace StorageBench.Tests;

/// <summary>
/// The live latency the dashboard shows: the exact merge of the slices' histograms, never an average of their
/// percentiles, and no percentile that too few requests support.
/// </summary>
[Trait("Category", "Unit")]
public class LiveLatencyTests
{
    private static string Slice(int samples, long micros)
    {
        var h = LatencyHistograms.Create();
        h.RecordValueWithCount(micros, samples);
        return LatencyHistograms.Encode(h);
    }

    [Fact]
    public void PercentilesComeFromTheMergedHistogramNotFromAveragingTheSlices()
    {
        // Slice 0: 900 requests at 10 ms; slice 1: 100 at 1,000 ms. Of all 1,000, the median is 10 ms and the p99 1,000 ms;
        // averaging the slices' medians would say 505 ms, averaging their p99s 505 ms too.
        var live = LiveLatency.Of([Slice(900, 10_000), Slice(100, 1_000_000)])!;

        Assert.Equal(1_000, live.Samples);
        Assert.Equal(10.0, live.P50Ms!.Value, 1);
        Assert.Equal(1_000.0, live.P99Ms!.Value, 0);
        Assert.Equal(1_000.0, live.MaxMs, 0);
    }

    [Fact]
    public void APercentileTooFewRequestsSupportIsLeftOutAndASliceWithoutSamplesAddsNothing()
    {
        var live = LiveLatency.Of([Slice(150, 20_000), null])!;   // the second slice has had no success yet

        Assert.Equal(150, live.Samples);
        Assert.NotNull(live.P50Ms);    // needs 20
        Assert.NotNull(live.P90Ms);    // needs 100
        Assert.Null(live.P99Ms);       // needs 1,000: with 150 it is one of the slowest two
        Assert.Null(LiveLatency.Of([null, null]));
    }

    [Fact]
    public void AWorkloadsProgressCarriesTheMergeOfItsSlices()
    {
        var at = new DateTime(2026, 11, 25, 6, 0, 0, DateTimeKind.Utc);
        SliceProgress P(int slice, string? latency) => new("r-s000", "tableInsert", slice, new LiveCounts(10, 1000, 0, 0), 100, 0, 10, at, at, false, latency);

        var w = WorkloadProgress.Of([P(0, Slice(900, 10_000)), P(1, Slice(100, 1_000_000)), P(2, null)], "tableInsert", at)!;

        Assert.Equal(1_000, w.LatencyMs!.Samples);
        Assert.Equal(10.0, w.LatencyMs.P50Ms!.Value, 1);
        Assert.Null(WorkloadProgress.Of([P(0, null)], "tableInsert", at)!.LatencyMs);
    }

    [Fact]
    public void ASlicesLiveHistogramIsTheMergeOfItsWorkersAndIsEncodedAgainOnlyWhenItHasNewSamples()
    {
        var a = new WorkerRecorder(0, 0);
        var b = new WorkerRecorder(0, 0);
        var live = new LiveSlice();
        live.Watch([a, b]);
        Assert.Null(live.ReadLatency());

        a.Latency.RecordValueWithCount(10_000, 90);
        b.Latency.RecordValueWithCount(1_000_000, 10);
        string first = live.ReadLatency()!;
        Assert.Equal(100, LatencyHistograms.Decode(first).TotalCount);
        Assert.InRange(LatencyHistograms.Decode(first).GetValueAtPercentile(95), 999_000, 1_001_000);
        // Nothing new: the same encoding, not a second one.
        Assert.Same(first, live.ReadLatency());

        b.Latency.RecordValue(2_000_000);
        Assert.Equal(101, LatencyHistograms.Decode(live.ReadLatency()!).TotalCount);

        // Other workers (the measured phase after the warm-up): theirs alone, even at the same count.
        var c = new WorkerRecorder(0, 0);
        c.Latency.RecordValueWithCount(5_000, 101);
        live.Watch([c]);
        Assert.InRange(LatencyHistograms.Decode(live.ReadLatency()!).GetValueAtPercentile(100), 4_995, 5_005);
    }

    [Fact]
    public void AReleasedSliceKeepsItsLastFiguresWhileItsRecordersHistogramsRecordForTheNextExecution()
    {
        var a = new WorkerRecorder(0, 0);
        a.Record(Outcome.Succeeded, System.Diagnostics.Stopwatch.GetTimestamp(), 100);
        a.Latency.RecordValueWithCount(10_000, 999);
        var live = new LiveSlice(new LiveCounts(5, 500, 0, 0));
        live.Watch([a]);
        var counts = live.Read();
        string latency = live.ReadLatency()!;

        live.Release();
        a.Return();
        // The next execution's recorders take histograms from the pool, cleared; this slice's figures stay its own.
        var next = Enumerable.Range(0, 4).Select(_ => new WorkerRecorder(0, 0)).ToList();
        Assert.All(next, r => Assert.Equal(0, r.Latency.TotalCount));
        foreach (var r in next)
        {
            r.Latency.RecordValueWithCount(2_000_000, 50);
        }

        Assert.Equal(new LiveCounts(6, 600, 0, 0), counts);
        Assert.Equal(counts, live.Read());
        Assert.Same(latency, live.ReadLatency());
        Assert.Equal(1_000, LatencyHistograms.Decode(live.ReadLatency()!).TotalCount);
    }
}
