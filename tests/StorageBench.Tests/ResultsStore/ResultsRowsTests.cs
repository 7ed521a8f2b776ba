using Azure.Data.Tables;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.TableInsert;

namespace StorageBench.Tests;

/// <summary>The results rows' mapping, as pure code: what a row holds, and what is read back from it (no storage).</summary>
[Trait("Category", "Unit")]
public class ResultsRowsTests
{
    private static readonly DateTime Started = new(2026, 11, 1, 2, 0, 0, DateTimeKind.Utc);

    private static string EncodedHistogram(params long[] micros)
    {
        var h = LatencyHistograms.Create();
        foreach (long m in micros)
        {
            h.RecordValue(m);
        }
        return LatencyHistograms.Encode(h);
    }

    private static WorkloadSummary BlobWorkload() => TestData.TableWorkload() with
    {
        Workload = "blobUpload", Entities = null, Bytes = 8_388_608, BlobsPlanned = 1, BlobsFailed = 0, BytesSent = 8_388_608, BytesSentForFailedBlobs = 0,
        Throughput = new Throughput(2, null, null, 4.5, 36), PeakUnit = "MB/s",
    };

    private static StepRecord Step(string? parameter, params WorkloadSummary[] workloads) =>
        new("run-1", "scn", Started, Started.AddSeconds(30), new RunEnvironment("Azurite", 2, "host-a", "m", "r", 4) { Workers = 3, LoadAverageStart = 0.5, ToolCommit = "abc" },
            3, parameter, parameter is null ? null : 8, RunStatus.Completed, ["one", "two"], workloads);

    [Fact]
    public void AStepRowHoldsTypedFiguresUnderTheNamedColumnsAndReadsBackTheSame()
    {
        var table = TestData.TableWorkload(ops: 200, throttled: 5, p99: 40, rate: 1500, entities: 20_000) with { LatencyHistogram = EncodedHistogram(1_000, 2_000, 40_000) };
        var row = RunRows.StepRow(Step(null, table, BlobWorkload()));

        Assert.Equal("scn", row.PartitionKey);
        Assert.Equal(RunRows.RunRowKey(Started, "run-1"), row.RowKey);
        Assert.Equal(200L, row.GetInt64(WorkloadColumns.Of(TableInsertRoom.Instance.Kind).Operations));
        Assert.Equal(20_000L, row.GetInt64(WorkloadColumns.Of(TableInsertRoom.Instance.Kind).Entities));
        Assert.Equal(1500, row.GetDouble(WorkloadColumns.Of(TableInsertRoom.Instance.Kind).EntitiesPerSecond));
        Assert.Equal(8_388_608L, row.GetInt64(WorkloadColumns.Of(BlobUploadRoom.Instance.Kind).Bytes));
        Assert.Equal(4.5, row.GetDouble(WorkloadColumns.Of(BlobUploadRoom.Instance.Kind).MegabytesPerSecond));
        Assert.Equal(8_388_608L, row.GetInt64(WorkloadColumns.Of(BlobUploadRoom.Instance.Kind).BytesSent));
        Assert.Equal("one\ntwo", row.GetString(ResultsColumns.Errors));
        Assert.False(row.ContainsKey(ResultsColumns.StepParameter));   // a plain run's step row is the run row

        var figures = RunRows.FiguresOf(row, "tableInsert")!;
        Assert.Equal(1500, figures.Rate);
        Assert.Equal(200, figures.Operations);
        Assert.Equal(5, figures.Throttled);
        Assert.Equal(3, figures.LatencySamples);   // read from the stored histogram, so p95 is there too
        Assert.NotNull(figures.LatencyP95Ms);
        Assert.Equal(4.5, RunRows.FiguresOf(row, "blobUpload")!.Rate);
        Assert.Equal(["tableInsert", "blobUpload"], RunRows.AllFiguresOf(row).Select(f => f.Workload));

        var environment = RunRows.EnvironmentOf(row);
        Assert.Equal(("Azurite", 2, 3, "host-a", 0.5, "abc"), (environment.TargetKind, environment.Instances, environment.Workers, environment.Host, environment.LoadAverageStart, environment.ToolCommit));
    }

    [Fact]
    public void EveryFilterableColumnARowWritesHasTheTypeTheFilterComparesItAs()
    {
        var row = RunRows.StepRow(Step("tableInsert.batchSize", TestData.TableWorkload(), BlobWorkload()));
        var written = row.Keys.Where(k => ResultsColumns.Int64Columns.Contains(k) || ResultsColumns.DoubleColumns.Contains(k)).ToList();

        Assert.Contains(WorkloadColumns.Of(TableInsertRoom.Instance.Kind).Operations, written);
        Assert.Contains(ResultsColumns.StepValue, written);
        Assert.All(written, column => Assert.IsType(ResultsColumns.Int64Columns.Contains(column) ? typeof(long) : typeof(double), row[column]));
        Assert.Empty(ResultsColumns.Int64Columns.Intersect(ResultsColumns.DoubleColumns));
        // Every column the regression rule judges for the workloads this row holds is written.
        var judged = new[] { WorkloadColumns.Of(TableInsertRoom.Instance.Kind), WorkloadColumns.Of(BlobUploadRoom.Instance.Kind) }.SelectMany(c => new[] { c.EntitiesPerSecond, c.MegabytesPerSecond, c.LatencyP99Ms });
        Assert.All(RegressionInput.Columns.Where(c => judged.Contains(c.Column)), c => Assert.Contains(c.Column, row.Keys));
        Assert.Equal(4, RegressionInput.Columns.Count(c => judged.Contains(c.Column)));
    }

    [Fact]
    public void AStepOfASweepHasItsOwnRowKeyAfterTheRunsAndNewerRunsSortFirst()
    {
        var row = RunRows.StepRow(Step("tableInsert.batchSize", TestData.TableWorkload()));

        Assert.Equal(RunRows.RunRowKey(Started, "run-1") + "-003", row.RowKey);
        Assert.Equal("tableInsert.batchSize", row.GetString(ResultsColumns.StepParameter));
        Assert.Equal(8, RunRows.FiguresOf(row, "tableInsert")!.StepValue);
        Assert.True(string.CompareOrdinal(RunRows.RunRowKey(Started.AddDays(1), "b"), RunRows.RunRowKey(Started, "a")) < 0);
        Assert.Null(RunRows.FiguresOf(row, "blobUpload"));   // no blob columns in this row
    }

    [Fact]
    public void ARunRowRecordsItsSpecForThePlannerAndASpecItCannotReadIsNone()
    {
        var run = TestData.Run("scn", Started, TestData.TableWorkload()) with { Environment = new RunEnvironment("AzureStorage", 1, "h", "m", "r", 8, TargetAccounts: 3) };
        var row = RunRows.RunRow(run);

        Assert.Equal(RunStatus.Completed, row.GetString(ResultsColumns.Status));
        var setup = RunRows.SetupOf(row)!;
        Assert.Equal(("scn", "AzureStorage", 3, 8), (setup.Spec.Scenario, setup.TargetKind, setup.TargetAccounts, setup.DriverCores));
        Assert.Equal("scn", RunRows.SpecOf(row)!.Scenario);

        row[ResultsColumns.Spec] = "{not json";
        Assert.Null(RunRows.SpecOf(row));
        Assert.Null(RunRows.SetupOf(row));
        Assert.Null(RunRows.SetupOf(new TableEntity("scn", "k") { [ResultsColumns.StepValue] = 1.0 }));
    }

    [Fact]
    public void ASliceRowReadsBackAsItsSummaryWithItsRateInTheWorkloadsUnit()
    {
        var slice = new SliceResult
        {
            StepId = "run-1-s000", AttemptId = "a1", Workload = "blobUpload", SliceIndex = 7, TargetIndex = 1, Host = "h",
            StartedUtc = Started, EndedUtc = Started.AddSeconds(4), StartLagSeconds = 0.25,
            Counts = new OutcomeCounts { Operations = 10, Succeeded = 9, Throttled = 1 }, Units = 8_000_000,
            LatencyHistogram = EncodedHistogram(5_000, 6_000), Timeline = Timeline.Empty,
        };
        var row = SliceRows.SliceRow("run-1", slice);

        Assert.Equal(("run-1", SliceRows.SliceRowKey("run-1-s000", "blobUpload", 7, "a1")), (row.PartitionKey, row.RowKey));
        var summary = SliceRows.SliceSummaryOf(row);
        Assert.Equal((7, 1, 10L, 9L, 1L, 1L, "a1"), (summary.SliceIndex, summary.TargetAccount, summary.Operations, summary.Succeeded, summary.Throttled, summary.Failed, summary.Attempt));
        Assert.Equal(2.0, summary.UnitsPerSecond, 6);   // 8 MB over 4 s, in MB/s for blobs
        Assert.Equal(0.25, summary.StartLagSeconds);
    }

    [Fact]
    public void AProgressRowReadsBackAndSortsWithinItsStepsRange()
    {
        var progress = new SliceProgress("run-1-s001", "tableInsert", 12, new LiveCounts(5, 500, 1, 2), 250, 1000, 10, Started, Started.AddSeconds(2), Done: true,
            Latency: "HISTFAAAA");   // the encoded histogram travels as it is
        var row = SliceRows.ProgressRow("run-1", progress);

        Assert.Equal(progress, SliceRows.ProgressOf(row) with { StartAtUtc = progress.StartAtUtc, UpdatedUtc = progress.UpdatedUtc });
        Assert.Equal((Started, Started.AddSeconds(2)), (SliceRows.ProgressOf(row).StartAtUtc, SliceRows.ProgressOf(row).UpdatedUtc));
        Assert.True(string.CompareOrdinal(row.RowKey, SliceRows.ProgressKeyStart("run-1-s001")) >= 0);
        Assert.True(string.CompareOrdinal(row.RowKey, SliceRows.ProgressKeyEnd("run-1-s001")) < 0);
        // Another step whose id starts the same way is outside the range.
        Assert.True(string.CompareOrdinal(SliceRows.ProgressKey("run-1-s0010", "tableInsert", 0), SliceRows.ProgressKeyEnd("run-1-s001")) >= 0);
    }
}
