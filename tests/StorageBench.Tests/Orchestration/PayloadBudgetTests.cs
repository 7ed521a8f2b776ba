using System.Text.Json;
using CsCheck;
using StorageBench.Engine;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// The payload budget's two tiers: a payload that carries measured figures may be as large as its histograms can be at their
/// worst (never larger), and any payload past its tier's budget — a control payload over 32 KiB, or one that grows with
/// the run — fails with one line naming what it carries, its size and its budget.
/// </summary>
[Trait("Category", "Unit")]
public class PayloadBudgetTests(ITestOutputHelper output)
{
    [Fact]
    public void AHistogramOfAnySpreadAndUpTo1e11SamplesStaysWithinItsWorstCaseAndTheFiguresBudget()
    {
        // Ends spread over every magnitude (1 µs to an hour), not mostly in the top buckets as uniform values would be.
        var micros = Gen.Int[0, 32].SelectMany(bits => Gen.Long[1, Math.Min(LatencyHistograms.HighestTrackableMicros, 1L << bits)]);
        Gen.Select(micros, micros, Gen.Int[1, 64], Gen.Long[1, 4_000_000], Gen.Int, (a, b, stride, most, seed) => (a, b, stride, most, seed))
            .Sample(t =>
            {
                var random = new Random(t.seed);
                // At most 23,552 buckets × 4 million: under 1e11 samples, a day of one slice at its fastest.
                var histogram = WideHistograms.Filled(Math.Min(t.a, t.b), Math.Max(t.a, t.b), t.stride, () => random.NextInt64(1, t.most + 1));
                int bytes = JsonBytes(histogram);
                Assert.True(bytes <= LatencyHistograms.LargestJsonBytes(histogram.TotalCount), $"{bytes:N0} bytes for {histogram.TotalCount:N0} samples");
                Assert.True(bytes <= PayloadBudget.HistogramBytes);
            }, iter: 60);
    }

    [Fact]
    public void EveryBucketFullOfRandomCountsIsTheWorstAHistogramMeetsAndStaysWithinItsBound()
    {
        var random = new Random(42);
        // Counts of 2^20 to 2^22: four-byte words with random low bits in all 23,552 buckets, about 6e10 samples.
        var histogram = WideHistograms.Full(() => random.NextInt64(1 << 20, 1 << 22));
        int bytes = JsonBytes(histogram);
        output.WriteLine($"every bucket full ({histogram.TotalCount:N0} samples): {bytes:N0} bytes in a payload; bound at that count " +
            $"{LatencyHistograms.LargestJsonBytes(histogram.TotalCount):N0}; a histogram's share of the figures budget {PayloadBudget.HistogramBytes:N0}");
        output.WriteLine($"budgets: control {PayloadBudget.ControlBytes:N0}; a slice's figures {PayloadBudget.For(typeof(SliceOutcome)):N0}; " +
            $"a step's {PayloadBudget.For(typeof(StepResult)):N0}; timeline {PayloadBudget.TimelineBytes:N0}");
        Assert.True(bytes <= LatencyHistograms.LargestJsonBytes(histogram.TotalCount));
    }

    [Fact]
    public void TheFiguresBudgetCountsEveryHistogramAResultOrAWorkloadCarries()
    {
        // A histogram added to a result without its count here would cross unbudgeted.
        int slice = typeof(SliceResult).GetProperties().Count(p => p.Name.EndsWith("Histogram", StringComparison.Ordinal))
            + typeof(SegmentDrift).GetProperties().Count(p => p.PropertyType == typeof(string));
        Assert.Equal(SliceResult.HistogramCount, slice);
        Assert.Equal(WorkloadSummary.HistogramCount, typeof(WorkloadSummary).GetProperties().Count(p => p.Name.EndsWith("Histogram", StringComparison.Ordinal)));
    }

    [Fact]
    public void AControlPayloadOver32KiBThrowsNamingWhatItCarriesItsSizeAndItsBudget()
    {
        Gen.Int[0, 6_000].Sample(attempts =>
        {
            var accepted = new AcceptedSlices("tableInsert", [.. Enumerable.Range(0, attempts).Select(i => $"{i:x8}")]);
            // As an activity's input too: DurableTask.Core hands the converter its parameters, an object[] of one.
            AssertWithinItsBudgetOrRefused(accepted, nameof(AcceptedSlices), PayloadBudget.ControlBytes);
            AssertWithinItsBudgetOrRefused(new object[] { accepted }, nameof(AcceptedSlices), PayloadBudget.ControlBytes);
        });
    }

    [Fact]
    public void AFiguresPayloadThatGrowsWithTheRunStillThrowsPastTheFiguresBudget()
    {
        int budget = PayloadBudget.For(typeof(SliceOutcome));
        Assert.True(budget > PayloadBudget.ControlBytes);
        Assert.Equal(budget, PayloadBudget.For(typeof(SliceOrder)));
        Assert.Equal(budget, PayloadBudget.For(typeof(SegmentedSliceInput)));
        Gen.Int[0, 200_000].Sample(segments =>
        {
            // Every segment's attempt id: a list as long as the run, which no worst case of its figures accounts for.
            var result = Result() with { SegmentAttempts = [.. Enumerable.Range(0, segments).Select(i => $"{i:x8}")] };
            AssertWithinItsBudgetOrRefused(new SliceOutcome(result), nameof(SliceOutcome), budget);
            var lastSegment = TableInsertOrder() with { SegmentsSoFar = result };
            AssertWithinItsBudgetOrRefused(new object[] { lastSegment }, nameof(SliceOrder), budget);
        }, iter: 30);
    }

    private static void AssertWithinItsBudgetOrRefused(object payload, string carried, int budget)
    {
        int bytes = PayloadBudget.SizeOf(JsonSerializer.Serialize(payload, payload.GetType(), JsonDefaults.Compact));
        var seen = new List<PayloadRecord>();
        var converter = new PayloadConverter(seen.Add);
        if (bytes <= budget)
        {
            Assert.NotNull(converter.Serialize(payload));
        }
        else
        {
            var refused = Assert.Throws<PayloadBudgetExceededException>(() => converter.Serialize(payload));
            Assert.Contains($"a {carried} payload is {bytes:N0} bytes, over its {budget:N0}-byte payload budget", refused.Message);
            Assert.DoesNotContain('\n', refused.Message);
        }
        Assert.Equal(new PayloadRecord(carried, bytes, budget), Assert.Single(seen));
    }

    private static int JsonBytes(LatencyHistogram histogram) =>
        PayloadBudget.SizeOf(JsonSerializer.Serialize(LatencyHistograms.Encode(histogram, LatencyHistograms.Compact), JsonDefaults.Compact));

    private static SliceOrder TableInsertOrder() =>
        new("tableInsert", "run", "run-s000", 0, DateTime.UtcNow, 0, JsonSerializer.SerializeToElement(new { table = "t" })) { Segments = new SegmentPlan(20, 1, 20) };

    private static SliceResult Result() => new()
    {
        StepId = "run-s000", Workload = "tableInsert", SliceIndex = 0, Host = "host", StartedUtc = DateTime.UnixEpoch, EndedUtc = DateTime.UnixEpoch.AddSeconds(1),
        Counts = new OutcomeCounts { Operations = 1, Succeeded = 1 }, Units = 1, LatencyHistogram = LatencyHistograms.Encode(LatencyHistograms.Create()),
        Timeline = Timeline.Empty,
    };
}
