using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Reports;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>
/// What the console summary, summary.md and summary.json say where a newcomer met a wrong or missing figure: a tiny blob
/// rate shown as 0.00 MB/s, and cleanup's account column and younger leftovers.
/// </summary>
[Trait("Category", "Unit")]
public class SummaryTextTests
{
    private static readonly DateTime T0 = new(2026, 11, 25, 11, 28, 36, DateTimeKind.Utc);

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
