using StorageBench.Engine.Measurement;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.TableInsert;

namespace StorageBench.Tests;

[Trait("Category", "Unit")]
public class SummaryCalculatorTests
{
    private static readonly DateTime T0 = new(2026, 11, 22, 1, 0, 0, DateTimeKind.Utc);
    private static readonly VerificationResult Ok = new(true, 0, 0, "entities", "test");

    private static SliceResult Slice(int index, IEnumerable<long> micros, DateTime start, DateTime end, TimelinePoint[]? timeline = null, long units = 0)
    {
        var h = LatencyHistograms.Create();
        long n = 0;
        foreach (var m in micros)
        {
            h.RecordValue(m);
            n++;
        }
        return new SliceResult
        {
            StepId = "r", Workload = "tableInsert", SliceIndex = index, Host = "h", StartedUtc = start, EndedUtc = end,
            Counts = new OutcomeCounts { Operations = n, Succeeded = n }, Units = units,
            LatencyHistogram = LatencyHistograms.Encode(h), Timeline = PerSecond(timeline ?? []),
        };
    }

    /// <summary>A per-second timeline from points (seconds in between are zero).</summary>
    private static Timeline PerSecond(TimelinePoint[] points)
    {
        if (points.Length == 0)
        {
            return Timeline.Empty;
        }
        long first = points.Min(p => p.UnixSecond), last = points.Max(p => p.UnixSecond);
        var ops = new long[last - first + 1];
        var units = new long[last - first + 1];
        foreach (var p in points)
        {
            ops[p.UnixSecond - first] += p.Operations;
            units[p.UnixSecond - first] += p.Units;
        }
        return new Timeline(first, 1, ops, units);
    }

    [Fact]
    public void MergedPercentilesArePercentilesOfAllSamplesWhereAveragingIsNot()
    {
        // A fast slice with many samples and a slow slice with few: the shape of a throttled instance.
        var rng = new Random(7);
        var fast = Enumerable.Range(0, 9_900).Select(_ => (long)rng.Next(8_000, 12_000)).ToArray();
        var slow = Enumerable.Range(0, 100).Select(_ => (long)rng.Next(900_000, 1_100_000)).ToArray();
        var summary = TableInsertRoom.SummarizeSlices(new TableInsertSpec(),
            [Slice(0, fast, T0, T0.AddSeconds(10)), Slice(1, slow, T0, T0.AddSeconds(10))], Ok);

        var union = fast.Concat(slow).Order().ToArray();
        foreach (var (percentile, reported) in new[] { (50.0, summary.LatencyMs.P50), (90.0, summary.LatencyMs.P90), (99.0, summary.LatencyMs.P99), (99.9, summary.LatencyMs.P999) })
        {
            // Within histogram precision (3 significant digits) of the exact rank, allowing for the
            // rank rounding HdrHistogram does (±1 sample).
            int rank = (int)Math.Ceiling(percentile / 100.0 * union.Length) - 1;
            Assert.InRange(reported!.Value, union[rank - 1] / 1000.0 * 0.999, union[rank + 1] / 1000.0 * 1.001);
        }
        Assert.Equal(10_000, summary.LatencyMs.Samples);
        Assert.InRange(summary.LatencyMs.Max!.Value, 1_099.0, 1_101.0);

        // Averaging the slices' p50s would report ~505 ms; the truth is ~10 ms.
        double averagedP50 = (NearestRank([.. fast.Order()], 50) + NearestRank([.. slow.Order()], 50)) / 2.0 / 1000.0;
        Assert.True(averagedP50 > 40 * summary.LatencyMs.P50, $"averaged {averagedP50} vs merged {summary.LatencyMs.P50}");
    }

    [Fact]
    public void ThroughputPeakAndAllSlicesWindowComeFromMergedTimelines()
    {
        long s0 = (T0.Ticks - DateTime.UnixEpoch.Ticks) / TimeSpan.TicksPerSecond;
        // Slice 0 runs seconds 0-4, slice 1 starts late and runs seconds 2-4: both active in [2, 4).
        var a = Slice(0, [1000], T0, T0.AddSeconds(4), [new(s0, 1, 100), new(s0 + 1, 1, 100), new(s0 + 2, 1, 100), new(s0 + 3, 1, 100)], units: 400);
        var b = Slice(1, [1000], T0.AddSeconds(2), T0.AddSeconds(4), [new(s0 + 2, 1, 300), new(s0 + 3, 1, 500)], units: 800);
        var summary = TableInsertRoom.SummarizeSlices(new TableInsertSpec { EntitySizeBytes = 1000 }, [a, b], Ok);

        Assert.Equal(4.0, summary.DurationSeconds);
        Assert.Equal(1200, summary.Entities);
        Assert.Equal(300.0, summary.Throughput.EntitiesPerSecond);
        Assert.Equal(300.0, summary.Throughput.KilobytesPerSecond);
        Assert.Equal(600.0, summary.PeakPerSecond);              // second 3: 100 + 500, summed across slices
        Assert.Equal(2.0, summary.AllSlicesActiveSeconds);
        Assert.Equal(500.0, summary.AllSlicesActiveThroughput!.EntitiesPerSecond); // (100+300+100+500)/2
        Assert.Equal(4, summary.Timeline.Count);
        Assert.Equal(1, summary.PeakWindowSeconds);
        // Slice rates: 400 in 4 s and 800 in 2 s.
        Assert.Equal(100.0, summary.SliceSpread!.MinUnitsPerSecond);
        Assert.Equal(400.0, summary.SliceSpread.MaxUnitsPerSecond);
    }

    [Fact]
    public void ThePerSecondSpreadCoversTheAllSlicesWindowCountingASecondWithNoSuccessAsZero()
    {
        long s0 = (T0.Ticks - DateTime.UnixEpoch.Ticks) / TimeSpan.TicksPerSecond;
        // Both slices run seconds 0-4, all four whole; second 2 has no success at all.
        var a = Slice(0, [1000], T0, T0.AddSeconds(4), [new(s0, 1, 100), new(s0 + 1, 1, 100), new(s0 + 3, 1, 100)], units: 300);
        var b = Slice(1, [1000], T0, T0.AddSeconds(4), [new(s0, 1, 300), new(s0 + 1, 1, 500), new(s0 + 3, 1, 300)], units: 1100);
        var spread = TableInsertRoom.SummarizeSlices(new TableInsertSpec(), [a, b], Ok).PerSecondSpread!;

        // Seconds 0-3: 400, 600, 0, 400 → mean 350; steps +200, −600, +400 → σ = √((200² + 600² + 400²) / (2 × 3)).
        Assert.Equal(4, spread.Samples);
        Assert.Equal(350.0, spread.Mean, 9);
        Assert.Equal(Math.Sqrt((200.0 * 200 + 600 * 600 + 400 * 400) / 6), spread.SecondToSecondDeviation, 9);
        Assert.Equal(spread.SecondToSecondDeviation / 2 / 350, spread.RelativeStandardError()!.Value, 9);

        // Under two whole seconds with every slice active: no spread.
        var shortRun = Slice(0, [1000], T0, T0.AddSeconds(1.5), [new(s0, 1, 100), new(s0 + 1, 1, 100)], units: 200);
        Assert.Null(TableInsertRoom.SummarizeSlices(new TableInsertSpec(), [shortRun], Ok).PerSecondSpread);
    }

    [Fact]
    public void ASteadyDeclineIsNotNoiseButASecondToSecondWobbleIs()
    {
        long s0 = (T0.Ticks - DateTime.UnixEpoch.Ticks) / TimeSpan.TicksPerSecond;
        // Azurite's shape as its store fills: 1,000 fewer each second. A plain standard deviation would say ±2,700.
        var declining = Enumerable.Range(0, 8).Select(i => new TimelinePoint(s0 + i, 1, 10_000 - 1_000 * i)).ToArray();
        var spread = TableInsertRoom.SummarizeSlices(new TableInsertSpec(), [Slice(0, [1000], T0, T0.AddSeconds(8), declining, units: 52_000)], Ok).PerSecondSpread!;
        Assert.Equal(1_000 / Math.Sqrt(2), spread.SecondToSecondDeviation, 9);

        var wobbling = Enumerable.Range(0, 8).Select(i => new TimelinePoint(s0 + i, 1, i % 2 == 0 ? 7_000 : 5_000)).ToArray();
        spread = TableInsertRoom.SummarizeSlices(new TableInsertSpec(), [Slice(0, [1000], T0, T0.AddSeconds(8), wobbling, units: 48_000)], Ok).PerSecondSpread!;
        Assert.Equal(2_000 / Math.Sqrt(2), spread.SecondToSecondDeviation, 9);
    }

    [Fact]
    public void PeakIgnoresPartlyCoveredSecondsAndIsAbsentWithoutAWholeOne()
    {
        long s0 = (T0.Ticks - DateTime.UnixEpoch.Ticks) / TimeSpan.TicksPerSecond;
        // 0.5 s into second 0 until 0.5 s into second 2: only second 1 is whole.
        var run = Slice(0, [1000], T0.AddSeconds(0.5), T0.AddSeconds(2.5), [new(s0, 1, 900), new(s0 + 1, 1, 100), new(s0 + 2, 1, 900)], units: 1900);
        Assert.Equal(100.0, TableInsertRoom.SummarizeSlices(new TableInsertSpec(), [run], Ok).PeakPerSecond);

        var shortRun = Slice(0, [1000], T0.AddSeconds(0.2), T0.AddSeconds(0.8), [new(s0, 1, 50)], units: 50);
        Assert.Null(TableInsertRoom.SummarizeSlices(new TableInsertSpec(), [shortRun], Ok).PeakPerSecond);
    }

    [Fact]
    public void ASecondWithNothingDoneIsInTheTimelineAsZero()
    {
        long s0 = (T0.Ticks - DateTime.UnixEpoch.Ticks) / TimeSpan.TicksPerSecond;
        var slice = Slice(0, [1000], T0, T0.AddSeconds(4), [new(s0, 1, 100), new(s0 + 3, 1, 100)], units: 200);
        var timeline = TableInsertRoom.SummarizeSlices(new TableInsertSpec(), [slice], Ok).Timeline;
        Assert.Equal([100L, 0L, 0L, 100L], timeline.Points().Select(p => p.Units));
    }

    [Fact]
    public void WallClockSecondsStayRightOnSlicesLongerThanTheOldOverflow()
    {
        // (t1 - t0) * TicksPerSecond overflowed a long after ~15 min at 1 ns Stopwatch ticks.
        var recorder = new WorkerRecorder(anchorUnixTicks: 0, anchorTimestamp: 0);
        long sixHours = 6 * 3600 * System.Diagnostics.Stopwatch.Frequency;
        Assert.Equal(TimeSpan.FromHours(6).Ticks, recorder.ToUnixTicks(sixHours));
    }

    [Fact]
    public void BlobThroughputIsInDecimalMegabytesAndMegabits()
    {
        // 24 MB staged in 2 s, 20 MB of it in the blob that was committed.
        var slice = Slice(0, [1000], T0, T0.AddSeconds(2), units: 24_000_000) with
        {
            Workload = "blobUpload", Objects = 1, CommittedUnits = 20_000_000, Planned = 2, FailedObjectUnits = 4_000_000,
        };
        var summary = BlobUploadRoom.SummarizeSlices(new BlobUploadSpec { BlobCount = 2 }, [slice], Ok);
        Assert.Equal(10.0, summary.Throughput.MegabytesPerSecond);   // goodput: committed bytes
        Assert.Equal(80.0, summary.Throughput.MegabitsPerSecond);
        Assert.Equal(12.0, summary.BlockThroughput!.MegabytesPerSecond);
        Assert.Null(summary.Entities);
        Assert.Equal(20_000_000, summary.Bytes);
        Assert.Equal((24_000_000L, 4_000_000L), (summary.BytesSent, summary.BytesSentForFailedBlobs));
        Assert.Equal((2L, 1L, 1L, 0.5), (summary.BlobsPlanned, summary.BlobsCommitted, summary.BlobsFailed, summary.UnstoredShare));
    }

    [Fact]
    public void FailuresAreCountedByKind()
    {
        var slice = Slice(0, [1000], T0, T0.AddSeconds(1)) with
        {
            Counts = new OutcomeCounts { Operations = 10, Succeeded = 4, Throttled = 3, TimedOut = 1, ServerErrors = 1, NetworkErrors = 1 },
        };
        var summary = TableInsertRoom.SummarizeSlices(new TableInsertSpec(), [slice, slice], Ok);
        Assert.Equal(20, summary.Operations);
        Assert.Equal(12, summary.Failed);
        Assert.Equal(6, summary.Throttled);
        Assert.Equal(2, summary.TimedOut);
    }

    [Fact]
    public void LatencyDistributionHoldsEverySampleAndIsRightSkewed()
    {
        var rng = new Random(3);
        // Right-skewed like the seeds' plots: most near 40 ms, a long slow tail.
        var samples = Enumerable.Range(0, 5_000).Select(_ => (long)(40_000 + 20_000 * -Math.Log(1 - rng.NextDouble()))).ToArray();
        var summary = TableInsertRoom.SummarizeSlices(new TableInsertSpec(), [Slice(0, samples, T0, T0.AddSeconds(1))], Ok);
        var bins = summary.LatencyDistribution;
        Assert.Equal(5_000, bins.Sum(b => b.Count));
        Assert.True(bins[0].FromMs <= summary.LatencyMs.Min && bins[^1].ToMs > summary.LatencyMs.Max);
        int peak = bins.ToList().FindIndex(b => b.Count == bins.Max(x => x.Count));
        Assert.True(bins[peak].ToMs < summary.LatencyMs.Mean, "the peak sits left of the mean");
    }

    [Fact]
    public void ClientCpuIsCountedOncePerProcessNotOncePerOverlappingSlice()
    {
        var a = Slice(0, [1000], T0, T0.AddSeconds(1), units: 500) with { ProcessId = 7, ProcessCpuSecondsAtStart = 10, ProcessCpuSecondsAtEnd = 12 };
        var b = Slice(1, [1000], T0, T0.AddSeconds(1), units: 500) with { ProcessId = 7, ProcessCpuSecondsAtStart = 10.5, ProcessCpuSecondsAtEnd = 12.5 };
        var summary = TableInsertRoom.SummarizeSlices(new TableInsertSpec(), [a, b], Ok);
        Assert.Equal(2.5, summary.ClientCpuSeconds, 6);
        Assert.Equal(2_500.0, summary.ClientCpuMicrosecondsPerEntity!.Value, 6);
    }

    private static long NearestRank(long[] sorted, double percentile) =>
        sorted[Math.Max(0, (int)Math.Ceiling(percentile / 100.0 * sorted.Length) - 1)];
}
