using System.Globalization;
using System.Text.RegularExpressions;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Reports;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>The rules that keep the report's charts and cells from misleading, each on a crafted summary.</summary>
[Trait("Category", "Unit")]
public class ChartRulesTests
{
    private static readonly DateTime Start = new(2026, 11, 23, 18, 0, 0, DateTimeKind.Utc);

    [Fact]
    public void AHistogramWithOneTenfoldOutlierEndsItsAxisAtP999AndCountsTheTailInALabelledOverflowBin()
    {
        var h = LatencyHistograms.Create();
        for (int i = 0; i < 2000; i++)
        {
            h.RecordValue(10_000 + i * 9_000 / 2000);   // 10–19 ms
        }
        h.RecordValue(190_000);                          // one request 10× slower
        var w = TestData.TableWorkload() with { LatencyMs = SummaryCalculator.Latency(h), LatencyDistribution = SummaryCalculator.Distribution(h, SummaryCalculator.HistogramBins) };

        string chart = Svg(HtmlReportWriter.Render(TestData.Run("charts", Start, w)), "latency-");

        double axisEnd = Ticks(chart, "x-tick").Max();
        Assert.InRange(axisEnd, w.LatencyMs.P999!.Value, 20);   // the axis ends at the round value above p99.9 (19 ms), not near 190
        var overflow = Regex.Match(chart, @"<rect class=""overflow""[^>]*><title>≥ ([\d.]+) \(to ([\d.]+)\): (\d+)</title>");
        Assert.True(overflow.Success, chart);
        Assert.InRange(int.Parse(overflow.Groups[3].Value, CultureInfo.InvariantCulture), 1, 3);   // the outlier, and any request at p99.9 itself
        Assert.InRange(double.Parse(overflow.Groups[2].Value, CultureInfo.InvariantCulture), 190, 191);
        Assert.Contains("class=\"overflow-label\"", chart);
        Assert.Single(Regex.Matches(chart, @"<rect class=""overflow"""));
        AssertRoundSteps(Ticks(chart, "x-tick"));
        AssertRoundSteps(Ticks(chart, "y-tick"));
    }

    [Fact]
    public void APercentileFromThirtySamplesIsNotDrawnAndEveryStepShowsItsSampleCount()
    {
        WorkloadSummary Step(double batch, long samples, double p99) => TestData.TableWorkload(ops: samples, p99: p99) with { StepParameter = "tableInsert.batchSize", StepValue = batch };
        var run = TestData.Run("sweep", Start, Step(1, 3000, 19), Step(10, 1500, 40), Step(100, 30, 851));

        string html = HtmlReportWriter.Render(run);
        string sweep = Svg(html, "sweep-");

        Assert.Contains("p99 latency (ms) at 1: 19<", sweep);
        Assert.Contains("p99 latency (ms) at 10: 40<", sweep);
        Assert.DoesNotContain("p99 latency (ms) at 100", sweep);   // its "p99" is the largest of 30 requests
        Assert.DoesNotContain(">851<", sweep);
        Assert.Contains("p50 latency (ms) at 100", sweep);          // 30 samples support a p50 (20 needed)
        Assert.Equal(["n=3,000", "n=1,500", "n=30"], Regex.Matches(sweep, @"class=""x-note""[^>]*>([^<]+)<").Select(m => m.Groups[1].Value));
        Assert.Contains("p99 not drawn for tableInsert batchSize=100 (30 samples): p99 needs at least 1,000 samples (10 above it)", html);

        // The same rule in the tables (summary.md, the console): marked, with the rule stated once.
        string md = ReportWriter.Markdown(run);
        Assert.Contains("| 851† | 851† | 851 |", md);
        Assert.Contains("| 19 | 19† | 19 |", md);   // 3,000 samples: p99 yes, p99.9 (10,000 needed) no
        Assert.Contains("† too few samples to support this percentile", md);
        Assert.Contains("p99 1,000, p99.9 10,000", md);
    }

    [Fact]
    public void LatencyThatSpansDecadesIsOnALogAxisTickedAtOneTwoFive()
    {
        WorkloadSummary Step(double c, double p99) => TestData.TableWorkload(ops: 5000, p99: p99) with { StepParameter = "tableInsert.concurrency", StepValue = c };
        string sweep = Svg(HtmlReportWriter.Render(TestData.Run("sweep", Start, Step(1, 4), Step(4, 30), Step(16, 600))), "sweep-");

        Assert.Contains("latency ms (log scale)", sweep);
        var right = Ticks(sweep, "y-tick-right");
        Assert.All(right, v => Assert.Contains(v / Math.Pow(10, Math.Floor(Math.Log10(v) + 1e-9)), new[] { 1.0, 2, 5 }.Select(m => Math.Round(m, 9))));
        Assert.InRange(right.Min(), 0.5, 1);      // from the power of ten below p50 (1 ms)
        Assert.Equal(1000, right.Max());          // to the one above the largest p99
        AssertRoundSteps(Ticks(sweep, "y-tick"));
    }

    [Fact]
    public void ASaturationChartMarksTheKneeAndTheHighestUsefulValue()
    {
        WorkloadSummary Step(double c, double rate) => TestData.TableWorkload(ops: 2000, rate: rate) with { StepParameter = "tableInsert.concurrency", StepValue = c };
        var run = TestData.Run("search", Start, Step(4, 1000), Step(8, 1900), Step(16, 3000), Step(32, 3050)) with
        {
            Saturation = new SaturationResult("tableInsert.concurrency", 16, 3000, "entities/s", 32, "throughput grew 2% while concurrency doubled") { StoppedBy = "throughput-growth", ThroughputAtKnee = 3050 },
        };

        string sweep = Svg(HtmlReportWriter.Render(run), "sweep-");

        var labels = Regex.Matches(sweep, @"class=""marker-label"" x=""([\d.]+)""[^>]*>([^<]+)<").ToDictionary(m => m.Groups[2].Value, m => double.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture));
        Assert.Equal(["highest useful 16", "knee 32"], labels.Keys);
        // Each marker stands at its step's point on the curve.
        double X(double c) => double.Parse(Regex.Match(sweep, $@"<circle cx=""([\d.]+)""[^>]*><title>throughput \(entities/s\) at {c}:").Groups[1].Value, CultureInfo.InvariantCulture);
        Assert.Equal(X(16) + 4, labels["highest useful 16"], 1);
        Assert.Equal(X(32) + 4, labels["knee 32"], 1);
    }

    [Fact]
    public void ATwoSecondStepGetsNoTimelineButSaysWhyAndALongerOneIsTickedAtWholeSeconds()
    {
        long t0 = new DateTimeOffset(Start).ToUnixTimeSeconds();
        var shortStep = TestData.TableWorkload() with { DurationSeconds = 2.1, Timeline = new Timeline(t0, 1, [40, 100, 30], [400, 1000, 300]) };
        var longStep = TestData.TableWorkload() with { Workload = "tableInsert", StepParameter = "tableInsert.batchSize", StepValue = 10, DurationSeconds = 7,
            Timeline = new Timeline(t0, 1, [.. Enumerable.Repeat(50L, 8)], [.. Enumerable.Repeat(500L, 8)]) };

        string html = HtmlReportWriter.Render(TestData.Run("short", Start, shortStep, longStep));

        Assert.Single(Regex.Matches(html, @"<svg class=""chart"" id=""timeline-"));
        Assert.Contains("No throughput timeline: the run is too short to have one (3 bucket(s) of 1 s over 2.1 s, the first and last partial; a timeline needs at least 5)", html);
        var seconds = Ticks(Svg(html, "timeline-"), "x-tick");
        Assert.All(seconds, s => Assert.Equal(Math.Round(s), s));
        AssertRoundSteps(seconds);
    }

    [Fact]
    public void AnUnverifiableRunSaysWhyAndTheCountColumnsSayWhetherWarmUpIsIn()
    {
        var w = TestData.TableWorkload() with
        {
            Verified = VerificationResult.StorageUnreadable("timed out after 10 s"),
            Planned = 2500, Stored = 2500,
        };

        string md = ReportWriter.Markdown(TestData.Run("unverifiable", Start, w));
        string html = HtmlReportWriter.Render(TestData.Run("unverifiable", Start, w));

        Assert.Contains("| not verified: storage could not be read after the run (timed out after 10 s) |", md);
        Assert.DoesNotContain("(0/0", md);
        Assert.Contains("| stored / planned (warm-up included) | entities / MB measured (warm-up excluded) |", md);
        Assert.Contains("<td>not verified: storage could not be read after the run (timed out after 10 s)</td>", html);
        Assert.Contains("yes (10,000/10,000 entities)", ReportWriter.Markdown(TestData.Run("verified", Start, TestData.TableWorkload())));
    }

    /// <summary>The first chart whose id starts so.</summary>
    private static string Svg(string html, string idPrefix) => Regex.Match(html, $@"<svg class=""chart"" id=""{idPrefix}[\s\S]*?</svg>").Value is { Length: > 0 } svg ? svg
        : throw new Xunit.Sdk.XunitException($"no chart {idPrefix}… in the page");

    private static List<double> Ticks(string svg, string cls) =>
        [.. Regex.Matches(svg, $@"class=""{cls}""[^>]*>([\d.]+)(k?)<").Select(m => double.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture) * (m.Groups[2].Value == "k" ? 1000 : 1))];

    /// <summary>Evenly spaced by 1, 2 or 5 × 10ⁿ, every tick a multiple of the step.</summary>
    private static void AssertRoundSteps(IReadOnlyList<double> ticks)
    {
        Assert.True(ticks.Count >= 2, "fewer than two ticks");
        double step = ticks[1] - ticks[0];
        double mantissa = Math.Round(step / Math.Pow(10, Math.Floor(Math.Log10(step) + 1e-9)), 6);
        Assert.Contains(mantissa, new[] { 1.0, 2, 5 });
        Assert.All(ticks.Zip(ticks.Skip(1), (a, b) => b - a), d => Assert.Equal(step, d, 6));
        Assert.All(ticks, t => Assert.Equal(Math.Round(t / step), t / step, 6));
    }
}
