using System.Diagnostics;
using System.Text.Json;
using CsCheck;
using StorageBench.Engine;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads;
using StorageBench.Engine.Workloads.TableInsert;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// A timed slice cut into segments runs the same schedule as the whole slice (no slot lost, none twice, each in its segment's
/// window), and its segments' figures put together are exactly what one execution would have recorded.
/// </summary>
[Trait("Category", "Unit")]
public class SegmentTests
{
    [Fact]
    public void SegmentsHandOnTheOpenLoopScheduleWithoutAGapOrAnOverlap()
    {
        Gen.Select(Gen.Double[0.5, 5_000], Gen.Int[2, 40], Gen.Double[1, 30], (rate, segments, seconds) => (rate, segments, seconds)).Sample(t =>
        {
            var (rate, segments, seconds) = t;
            double duration = segments * seconds - seconds / 3;
            var spec = new TableInsertSpec { DurationSeconds = duration };
            var plan = SegmentPlan.For(spec, new RunSpec { SegmentSeconds = seconds })!;
            Assert.Equal(segments, plan.Count);
            // Every window already past: nothing is handed out, so each segment counts its whole share of slots as dropped.
            long origin = Stopwatch.GetTimestamp() - (long)((duration + 5) * Stopwatch.Frequency);
            var whole = new OperationSchedule(spec, long.MaxValue, rate, origin);
            long next = 0, dropped = 0;
            for (int k = 0; k < plan.Count; k++)
            {
                var segment = plan.Segment(k, k == 0 ? null : new SegmentContinuation(DateTime.UtcNow, next));
                Assert.Equal(next, segment.FirstOperation);
                var part = new OperationSchedule(spec, long.MaxValue, rate, origin, segment);
                dropped += part.Dropped();
                long after = part.NextOperation();
                // The segment's slots fall in its window: its first at or after its start, the next segment's at or after its end.
                Assert.True(after >= next);
                Assert.True(after / rate >= segment.EndSeconds - 1e-6 && (after - 1) / rate < segment.EndSeconds + 1e-6, $"slot {after} at {after / rate} s, window ends {segment.EndSeconds} s");
                next = after;
            }
            Assert.Equal(whole.Dropped(), dropped);
        });
    }

    [Fact]
    public void ASliceShorterThanOneSegmentOrOfAFixedCountRunsWhole()
    {
        Assert.Null(SegmentPlan.For(new TableInsertSpec { DurationSeconds = 300 }, new RunSpec()));
        Assert.Null(SegmentPlan.For(new TableInsertSpec { DurationSeconds = 10 }, new RunSpec { SegmentSeconds = 10 }));
        Assert.Null(SegmentPlan.For(new TableInsertSpec { EntityCount = 1_000_000 }, new RunSpec { SegmentSeconds = 1 }));
        Assert.Equal(2, SegmentPlan.For(new TableInsertSpec { DurationSeconds = 301 }, new RunSpec())!.Count);
        Assert.Equal(6, SegmentPlan.For(new TableInsertSpec { DurationSeconds = 60 }, new RunSpec { SegmentSeconds = 10 })!.Count);
    }

    [Fact]
    public void SegmentSecondsOutOfRangeIsOneLineNamingTheFieldTheValueAndTheRule()
    {
        Gen.OneOf(Gen.Double[-1e6, 0.999], Gen.Double[86_400.001, 1e9]).Sample(seconds =>
        {
            var errors = RunSpecValidator.Validate(new RunSpec { Scenario = "s", SegmentSeconds = seconds, TableInsert = new TableInsertSpec() });
            var error = Assert.Single(errors);
            Assert.Equal("segmentSeconds", error.Field);
            Assert.Equal(SpecChecks.Num(seconds), error.Value);
            Assert.StartsWith("must be between 1 and 86400", error.Rule);
        });
        Assert.Empty(RunSpecValidator.Validate(new RunSpec { Scenario = "s", SegmentSeconds = 1, TableInsert = new TableInsertSpec() }));
    }

    [Fact]
    public void SegmentsMergedAreExactlyOneExecutionsFiguresAndEverySegmentsWritesAreAccepted()
    {
        Gen.Select(Gen.Int[1, 100_000].Array[2, 12], Gen.Int[1, 4].Array[12], (latencies, units) => (latencies, units)).Sample(t =>
        {
            var (latencies, units) = t;
            long t0 = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
            var parts = latencies.Select((micros, k) => Segment(k, t0 + 10L * k, micros, units[k])).ToList();
            SliceResult? merged = null;
            for (int k = 0; k < parts.Count; k++)
            {
                merged = SegmentMerge.Add(merged, parts[k], k, parts.Count);
            }
            var all = LatencyHistograms.Create();
            foreach (int micros in latencies)
            {
                all.RecordValue(micros);
            }
            var latency = LatencyHistograms.Decode(merged!.LatencyHistogram);
            // Carried as compactly as one execution's result: the same counts give the same bytes.
            Assert.Equal(LatencyHistograms.Encode(all, LatencyHistograms.Compact), merged.LatencyHistogram);
            Assert.Equal(all.TotalCount, latency.TotalCount);
            Assert.Equal(all.GetValueAtPercentile(99), latency.GetValueAtPercentile(99));
            Assert.Equal(parts.Sum(p => p.Units), merged.Units);
            Assert.Equal(parts.Sum(p => p.Counts.Succeeded), merged.Counts.Succeeded);
            Assert.Equal(parts.Sum(p => p.Units), merged.Timeline.Units.Sum());
            Assert.Equal(parts[0].StartedUtc, merged.StartedUtc);
            Assert.Equal(parts[^1].EndedUtc, merged.EndedUtc);
            Assert.Equal(parts[^1].Worker, merged.Worker);
            Assert.Equal(parts.Select(p => p.AttemptId), SliceExecutions.Attempts([merged]));
            Assert.Equal(parts.Count >= 10, merged.Drift is not null);
        });
    }

    [Fact]
    public void ATwentyFourHourSliceInFiveMinuteSegmentsStaysWithinThePayloadBudget()
    {
        // 288 segments of 300 s at a blob workload's byte counts (1 GB/s per second): the carried figures the slice's
        // orchestration continues as new with, and hands the step.
        long t0 = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        SliceResult? merged = null;
        for (int k = 0; k < 288; k++)
        {
            var timeline = new Timeline(t0 + 300L * k, 1, [.. Enumerable.Repeat(987_654L, 300)], [.. Enumerable.Repeat(1_000_000_000L, 300)]);
            merged = SegmentMerge.Add(merged, Segment(k, t0 + 300L * k, 1_000 + k, 1) with { Timeline = timeline, ContentMd5 = "1B2M2Y8AsgTpgAmY7PhCfg==" }, k, 288);
        }
        int bytes = PayloadBudget.SizeOf(JsonSerializer.Serialize(new SegmentedSliceInput(Order(), 288, merged), JsonDefaults.Compact));
        Assert.True(merged!.Timeline.Count <= SliceResult.MaxTimelineBuckets, $"{merged.Timeline.Count} buckets");
        Assert.True(bytes < PayloadBudget.For(typeof(SegmentedSliceInput)), $"{bytes:N0} bytes carried");
    }

    [Fact]
    public void DriftFlagsARunThatSlowedBeyondItsNoiseAndNeverOneThatHeldItsPace()
    {
        var gen = Gen.Select(Gen.Double[100, 10_000], Gen.Double[0, 0.05], Gen.Int[30, 600], Gen.Double[-0.1, 0.1], (mean, noise, seconds, wobble) => (mean, noise, seconds, wobble));
        gen.Sample(t =>
        {
            var first = new RateSpread(t.mean, t.mean * t.noise, t.seconds);
            var latency = Latencies(1_000, 2_000);
            // Within the floor (15 % for throughput, 50 % for p99) and far above the noise: stable.
            Assert.Equal(DriftFigure.Stable, Judge(first, first with { Mean = t.mean * (1 + t.wobble) }, latency, Latencies(1_000 * (1 + t.wobble), 2_000)));
            // A quarter slower or more, or a p99 doubled: slower; a rate 40 % up: faster.
            Assert.Equal(DriftFigure.Slower, Judge(first, first with { Mean = t.mean * (0.75 + t.wobble) - t.mean * 0.1 }, latency, latency));
            Assert.Equal(DriftFigure.Slower, Judge(first, first, latency, Latencies(2_000, 2_000)));
            Assert.Equal(DriftFigure.Faster, Judge(first, first with { Mean = t.mean * 1.4 }, latency, latency));
        });
        // Too few requests for a p99 in a tenth: the rate alone decides, and the p99 is not a figure.
        var few = DriftFigure.Judge(new RateSpread(100, 1, 60), new RateSpread(100, 1, 60), Latencies(1_000, 10), Latencies(9_000, 10), NoiseRule.Default);
        Assert.Equal((DriftFigure.Stable, (double?)null), (few.Verdict, few.LastTenthP99Ms));
        // Tenths that measured nothing, too few for a p99 either: no verdict, never "stable".
        var nothing = DriftFigure.Judge(new RateSpread(0, 0, 60), new RateSpread(0, 0, 60), Latencies(1_000, 10), Latencies(9_000, 10), NoiseRule.Default);
        Assert.Equal(DriftFigure.CannotJudge, nothing.Verdict);
    }

    private static string Judge(RateSpread first, RateSpread last, HdrHistogram.HistogramBase a, HdrHistogram.HistogramBase b) =>
        DriftFigure.Judge(first, last, a, b, NoiseRule.Default).Verdict;

    private static LatencyHistogram Latencies(double micros, int count)
    {
        var h = LatencyHistograms.Create();
        h.RecordValueWithCount((long)micros, count);
        return h;
    }

    [Fact]
    public void OnlyTheFinishedSegmentBeforeThisOneIsNoLostExecution()
    {
        Gen.Select(Gen.Int[0, 300], Gen.Int[0, 300], Gen.Bool, (earlier, next, done) => (earlier, next, done)).Sample(t =>
        {
            var row = new SliceProgress("run-0", "tableInsert", 3, new LiveCounts(1, 1, 0, 0), 0, 0, 60, DateTime.UtcNow, DateTime.UtcNow, t.done) { Segment = t.earlier };
            var next = row with { Segment = t.next, Done = false };
            Assert.Equal(!(t.done && t.next > t.earlier), row.IsLostExecutionOf(next));
            // A slice run whole: any earlier row is a lost execution.
            Assert.True((row with { Segment = null }).IsLostExecutionOf(next with { Segment = null }));
        });
    }

    private static SliceOrder Order() =>
        new("tableInsert", "run", "run-0", 3, DateTime.UtcNow, 0, JsonSerializer.SerializeToElement(new { table = "t" })) { Segments = new SegmentPlan(288, 300, 86_400) };

    private static SliceResult Segment(int k, long unixSecond, int micros, long units)
    {
        var h = LatencyHistograms.Create();
        h.RecordValue(micros);
        var started = DateTime.UnixEpoch.AddSeconds(unixSecond);
        return new SliceResult
        {
            StepId = "run-0", AttemptId = $"a{k:D7}", Workload = "tableInsert", SliceIndex = 3, Host = $"host{k}", StartedUtc = started, EndedUtc = started.AddSeconds(9),
            Counts = new OutcomeCounts { Operations = 1, Succeeded = 1 }, Units = units, LatencyHistogram = LatencyHistograms.Encode(h),
            Timeline = new Timeline(unixSecond, 1, [1], [units]), Worker = $"host{k}/1",
        };
    }
}
