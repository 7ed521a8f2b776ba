using StorageBench.Engine.Workloads.BlobDownload;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.PageBlobUpload;
using StorageBench.Engine.Workloads.TableInsert;
using System.Text.Json;
using StorageBench.Cli;
using StorageBench.Engine;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration.Dashboard;

namespace StorageBench.Tests;

/// <summary>
/// One list of workloads (WorkloadKind) names each one's units: the live progress carries them to the CLI and the
/// dashboard (which keeps no copy), and the rate, the peak and CPU per unit are read through it.
/// </summary>
[Trait("Category", "Unit")]
public class WorkloadKindTests
{
    private static readonly DateTime Start = new(2026, 11, 23, 18, 0, 0, DateTimeKind.Utc);

    [Theory]
    [InlineData("tableInsert", "entities/s", 1.0, "12,000/40,000 entities (30%)")]
    [InlineData("blobUpload", "MB/s", 1e6, "12,000.0/40,000.0 MB (30%)")]
    [InlineData("pageBlobUpload", "MB/s", 1e6, "12,000.0/40,000.0 MB (30%)")]
    [InlineData("blobDownload", "MB/s", 1e6, "12,000.0/40,000.0 MB (30%)")]
    public void TheLiveProgressCarriesItsWorkloadsUnitsToTheDashboardAndTheCli(string workload, string rateUnit, double countedPerUnit, string done)
    {
        var slice = new SliceProgress("step", workload, 0, new LiveCounts(10, (long)(12_000 * countedPerUnit), 0, 0), 100, (long)(40_000 * countedPerUnit), 0,
            Start, Start.AddSeconds(2), false);
        var live = WorkloadProgress.Of([slice], workload, Start.AddSeconds(2))!;
        // What GET /api/runs/{id} sends while the run goes: the dashboard reads live.kind.rateUnit and live.kind.countedPerUnit.
        var json = JsonDocument.Parse(JsonSerializer.Serialize(live, JsonDefaults.Options)).RootElement.GetProperty("kind");
        Assert.Equal(rateUnit, json.GetProperty("rateUnit").GetString());
        Assert.Equal(countedPerUnit, json.GetProperty("countedPerUnit").GetDouble());
        Assert.StartsWith(done, ProgressDisplay.Figures(live));
    }

    [Fact]
    public void TheDashboardKeepsNoCopyOfTheUnits()
    {
        string page = DashboardPage.Response().Html!;
        string script = page[page.IndexOf("<script", StringComparison.Ordinal)..];
        Assert.All(WorkloadKind.All.SelectMany(k => new[] { k.RateUnit, $"\"{k.CountedUnit}\"" }), unit => Assert.DoesNotContain(unit, script));
        Assert.Contains("live.kind.rateUnit", script);
    }

    [Fact]
    public void EachWorkloadReadsItsOwnRateAndEveryNameIsKnown()
    {
        var throughput = new Throughput(10, 1_000, 1_024, 2.5, 20);
        Assert.Equal(1_000, WorkloadKind.Of(TableInsertRoom.Instance.Name).RateOf(throughput));
        Assert.Equal(2.5, WorkloadKind.Of(BlobUploadRoom.Instance.Name).RateOf(throughput));
        Assert.Equal(2.5, WorkloadKind.Of(PageBlobUploadRoom.Instance.Name).RateOf(throughput));
        Assert.Equal(1_000, WorkloadKind.Of("tableRead").RateOf(throughput));
        Assert.Equal(2.5, WorkloadKind.Of(BlobDownloadRoom.WorkloadName).RateOf(throughput));
        Assert.Equal(["µs/entity", "µs/MB", "µs/MB", "µs/entity", "µs/MB", "µs/MB"], WorkloadKind.All.Select(k => k.CpuUnit));
        Assert.Null(WorkloadKind.Find("queueSend"));
        Assert.Contains("tableInsert, blobUpload", Assert.Throws<ArgumentException>(() => WorkloadKind.Of("queueSend")).Message);
    }
}
