using System.Text.Json;
using StorageBench.Cli;
using StorageBench.Engine;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Reports;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>
/// A run that sent nothing (canceled before its first request) has no percentile: every latency, service-time and lag
/// figure is null in summary.json, n/a in the reports, absent from the results row; its tables say "none sent" and
/// "nothing to verify", never 100 % or yes. A run that measured something still shows its figures.
/// </summary>
[Trait("Category", "Unit")]
public class NoSampleFiguresTests
{
    internal static WorkloadSummary NothingSent() => TestData.TableWorkload(ops: 0, entities: 0) with
    {
        LatencyMs = SummaryCalculator.Latency(LatencyHistograms.Create()),
        ServiceTimeMs = SummaryCalculator.Latency(LatencyHistograms.Create()),
        ScheduleLag = SummaryCalculator.Lag(LatencyHistograms.Create(), dropped: 0),
        Planned = 0,
        Stored = 0,
        Verified = new VerificationResult(true, 0, 0, "entities", "0 entities in the run's table"),
    };

    [Fact]
    public void SummaryJsonWritesNullForEveryFigureOfNoSamples()
    {
        var json = JsonDocument.Parse(JsonSerializer.Serialize(NothingSent(), JsonDefaults.Options)).RootElement;
        foreach (string figure in new[] { "latencyMs", "serviceTimeMs" })
        {
            var l = json.GetProperty(figure);
            Assert.Equal(0, l.GetProperty("samples").GetInt64());
            Assert.All(new[] { "min", "p50", "mean", "p90", "p99", "p999", "max" }, p => Assert.Equal(JsonValueKind.Null, l.GetProperty(p).ValueKind));
        }
        Assert.Equal(JsonValueKind.Null, json.GetProperty("scheduleLag").GetProperty("p99Ms").ValueKind);

        var back = JsonSerializer.Deserialize<WorkloadSummary>(json.GetRawText(), JsonDefaults.Options)!;
        Assert.Null(back.LatencyMs.P99);
        // One with samples keeps its figures.
        Assert.Equal(50, JsonDocument.Parse(JsonSerializer.Serialize(TestData.TableWorkload(p99: 50), JsonDefaults.Options)).RootElement
            .GetProperty("latencyMs").GetProperty("p99").GetDouble());
    }

    [Fact]
    public void TheReportsSayNothingWasSentInsteadOfAFullShareOrAYes()
    {
        var run = TestData.Run("none", new DateTime(2026, 11, 26, 1, 0, 0, DateTimeKind.Utc), NothingSent()) with { Status = RunStatus.Canceled };
        string md = ReportWriter.Markdown(run);
        Assert.Contains("| 0/0 (none sent) |", md);
        Assert.Contains("| nothing to verify (0 entities) |", md);
        Assert.Contains("| tableInsert | 0 | n/a | n/a | n/a |", md);
        Assert.DoesNotContain("100.0%", md);
        Assert.DoesNotContain("yes (0/0", md);
        string console = ConsoleReport.Default(run);
        Assert.Contains("| n/a | n/a | none sent |", console);

        // A run that stored what it planned still says so.
        string measured = ReportWriter.Markdown(TestData.Run("some", run.StartedUtc, TestData.TableWorkload() with { Planned = 10_000, Stored = 10_000 }));
        Assert.Contains("(100.0%)", measured);
        Assert.Contains("yes (10,000/10,000 entities)", measured);
    }

    [Fact]
    public void TelemetryLeavesOutWhatDoesNotExist()
    {
        var run = TestData.Run("none", new DateTime(2026, 11, 26, 1, 0, 0, DateTimeKind.Utc), NothingSent());
        var measurements = Engine.Telemetry.TelemetryEvents.ForWorkloads(run, run.Workloads).Single().Measurements;
        Assert.DoesNotContain("latencyP99Ms", measurements.Keys);
        Assert.Equal(0, measurements["lateRequests"]);
    }
}
