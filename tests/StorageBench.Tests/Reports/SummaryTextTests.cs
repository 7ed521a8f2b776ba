using System.Text.Json;
using StorageBench.Cli;
using StorageBench.Engine;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Reports;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>
/// What the console summary, summary.md and summary.json say where a newcomer met a wrong or missing figure: a workload
/// the spec had and the run never measured, a note listed as an error, a late start blamed on startDelaySeconds when a
/// re-run made it, a tiny blob rate shown as 0.00 MB/s, and cleanup's account column and younger leftovers.
/// </summary>
[Trait("Category", "Unit")]
public class SummaryTextTests
{
    private static readonly DateTime T0 = new(2026, 11, 25, 11, 28, 36, DateTimeKind.Utc);

    private static RunSummary Canceled() => TestData.Run("quick", T0, TestData.TableWorkload()) with
    {
        Status = RunStatus.Canceled,
        Unmeasured = [new UnmeasuredWorkload("blobUpload", null, null, "not started: the run was canceled at 11:28:40Z")],
        Notes = ["tableInsert slice 1: re-run: an earlier execution on worker vm/123 did not hand back its result"],
    };

    [Fact]
    public void AWorkloadTheRunNeverMeasuredIsNamedWithWhyInEverySummary()
    {
        var s = Canceled();

        const string line = "- blobUpload: no figures: not started: the run was canceled at 11:28:40Z";
        Assert.Contains(line, ConsoleReport.Default(s).Split(Environment.NewLine));
        Assert.Contains(line, ReportWriter.Markdown(s).Split(Environment.NewLine));
        Assert.Contains("not started: the run was canceled at 11:28:40Z", HtmlReportWriter.Render(s));
        Assert.Contains("\"unmeasured\":[{\"workload\":\"blobUpload\"", JsonSerializer.Serialize(s, JsonDefaults.Options).Replace(" ", "").Replace("\n", ""));
        Assert.EndsWith("no figures: blobUpload; out/x/summary.json", ConsoleReport.StatusLine(s, "out/x/summary.json"));
        // With no workload measured at all, the line is still there.
        Assert.Contains("- tableInsert: no figures: canceled at 11:28:37Z before any slice handed back figures",
            ConsoleReport.Default(s with { Workloads = [], Unmeasured = [new("tableInsert", null, null, "canceled at 11:28:37Z before any slice handed back figures")] }));
    }

    [Fact]
    public void ALongRunsDriftIsSaidInSummaryMdAndNothingIsSaidWithoutOne()
    {
        var table = TestData.TableWorkload();
        var drifted = table with { Drift = new DriftFigure(DriftFigure.Slower, 2_000, 1_400, 0.15, 40, 95, 0.5) };

        Assert.Contains("Drift, first tenth of the run → last: slower: 2,000.0 → 1,400.0 entities/s (noise ±15 %), p99 40.0 → 95.0 ms (noise ±50 %).",
            ReportWriter.Markdown(TestData.Run("soak", T0, drifted)));
        Assert.DoesNotContain("Drift", ReportWriter.Markdown(TestData.Run("soak", T0, table)));
    }

    [Fact]
    public void ARerunSliceIsANoteNotAnError()
    {
        var s = Canceled() with { Status = RunStatus.Completed, Unmeasured = [] };

        foreach (string text in new[] { ConsoleReport.Default(s), ReportWriter.Markdown(s) })
        {
            Assert.Contains("- note: tableInsert slice 1: re-run: an earlier execution", text);
            Assert.DoesNotContain("error:", text);
        }
        Assert.DoesNotContain("error(s)", ConsoleReport.StatusLine(s, "summary.json"));
    }

    [Fact]
    public void ALateStartNamesItsCauseARerunOrTooShortAStartDelay()
    {
        var table = TestData.TableWorkload();
        // A resumed slice started 90 s after the synchronized start; the slices that ran once were on time.
        var resumed = table with { SliceSpread = new SliceSpread(100, 100, 100, 90) { RerunSlices = 1, FirstRunsMaxStartLagSeconds = 0.002 } };
        // No re-run: the setup took longer than startDelaySeconds.
        var slowStart = table with { SliceSpread = new SliceSpread(100, 100, 100, 0.2) };
        // Both: each cause with its own figure.
        var both = table with { SliceSpread = new SliceSpread(100, 100, 100, 90) { RerunSlices = 2, FirstRunsMaxStartLagSeconds = 0.3 } };

        Assert.DoesNotContain("raise startDelaySeconds", ReportWriter.LateStart(resumed));
        Assert.Contains("1 slice(s) ran again after an earlier execution was lost (a worker stopped, or the run was resumed) and passed the synchronized start up to 90,000 ms late",
            ReportWriter.LateStart(resumed));
        Assert.Equal(" WARNING: slices passed the synchronized start up to 200 ms late; raise startDelaySeconds.", ReportWriter.LateStart(slowStart));
        Assert.StartsWith(" WARNING: slices passed the synchronized start up to 300 ms late; raise startDelaySeconds. WARNING: 2 slice(s) ran again", ReportWriter.LateStart(both));
        Assert.Equal("", ReportWriter.LateStart(table with { SliceSpread = new SliceSpread(100, 100, 100, 0.01) }));
        // The console and summary.md say the same.
        var s = TestData.Run("quick", T0, resumed);
        Assert.Contains("startDelaySeconds cannot change that", ConsoleReport.Default(s).ReplaceLineEndings(" "));
        Assert.Contains("startDelaySeconds cannot change that", ReportWriter.Markdown(s));
        Assert.DoesNotContain("raise startDelaySeconds", ConsoleReport.Default(s).ReplaceLineEndings(" "));
    }

    [Fact]
    public void ATinyBlobRateIsShownInAUnitThatIsNotZero()
    {
        var blob = TestData.TableWorkload() with
        {
            Workload = "blobUpload", Entities = null, Bytes = 40_000, PeakUnit = "MB/s",
            Throughput = new Throughput(1, null, 4, 0.004, 0.032),
            Verified = new VerificationResult(true, 1, 1, "blobs", "synthetic"),
        };
        var s = TestData.Run("tiny", T0, blob);

        Assert.Contains("| 4.00 KB/s |", ConsoleReport.Default(s));
        Assert.Contains("| 4.00 KB/s (0.032 Mbps) |", ReportWriter.Markdown(s));
        Assert.DoesNotContain("0.00 MB/s", ConsoleReport.Default(s) + ReportWriter.Markdown(s));
        Assert.Equal(["66.65 MB/s", "999.00 KB/s", "0.00 MB/s"], new[] { 66.654, 0.999, 0 }.Select(ReportWriter.BytesPerSecond));
    }

    [Fact]
    public void CleanupNamesTheAccountAndSaysHowManyYoungerLeftoversItLeft()
    {
        var now = T0;
        var old = new Leftover(0, "table", "sbt20261120000000abc000", now.AddDays(-5), "abc000") { AccountName = "devstoreaccount1" };

        Assert.Contains("| devstoreaccount1 | table | sbt20261120000000abc000 | 2026-11-20 11:28:36Z | 120.0 h |", CleanupCommand.Table([old], now));
        Assert.Equal("dry run: 1 table(s) and container(s) older than 25h would be deleted; nothing was deleted; 3 younger than 25h left alone " +
            "(a run may still be writing them; --older-than with a shorter age, e.g. 0s, includes them)", CleanupCommand.Outcome(1, 3, "25h", dryRun: true));
        Assert.Equal("deleted 1 table(s) and container(s) older than 25h", CleanupCommand.Outcome(1, 0, "25h", dryRun: false));
    }
}
