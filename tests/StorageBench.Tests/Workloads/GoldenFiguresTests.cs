using StorageBench.Engine.Workloads.BlobDownload;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.PageBlobUpload;
using StorageBench.Engine.Workloads.TableInsert;
using StorageBench.Engine.Workloads.TableRead;
using System.Globalization;
using System.Text;
using System.Text.Json;
using Azure.Data.Tables;
using StorageBench.Engine;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Telemetry;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>
/// Pins, for fixed slice results, what every existing workload becomes: its summary.json section, its step row, its slice
/// rows and its telemetry event, byte for byte. Rooms and the engine may be reshaped freely; what users and stored rows see
/// may not move without this file's golden text changing with it. On a difference the actual text is written to a temp
/// file whose path the failure names.
/// </summary>
[Trait("Category", "Unit")]
public class GoldenFiguresTests
{
    private static readonly DateTime Start = new(2026, 11, 1, 2, 0, 0, DateTimeKind.Utc);

    /// <summary>The five workloads this file pins; a workload added later has its own tests.</summary>
    private static readonly string[] Pinned = ["tableInsert", "blobUpload", "pageBlobUpload", "tableRead", "blobDownload"];

    public static TheoryData<string, string> Cases()
    {
        var data = new TheoryData<string, string>();
        foreach (string workload in Pinned)
        {
            data.Add(workload, "count");
            data.Add(workload, "timed");
        }
        return data;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void AWorkloadsFiguresAreWhatTheyWere(string workload, string variant)
    {
        string actual = Figures(workload, variant == "timed");
        string golden = Path.Combine(Repo.Root(), "tests", "StorageBench.Tests", "Workloads", "Golden", $"{workload}.{variant}.txt");
        string expected = File.Exists(golden) ? File.ReadAllText(golden) : "";
        if (actual != expected)
        {
            string written = Path.Combine(Path.GetTempPath(), $"storagebench-golden-{workload}.{variant}.txt");
            File.WriteAllText(written, actual);
            Assert.Fail($"{workload} ({variant}) figures differ from {golden}; actual written to {written}");
        }
    }

    private static string Figures(string workload, bool timed)
    {
        var spec = SpecOf(timed);
        var room = WorkloadList.Of(workload);
        var slices = new[] { Slice(workload, 0, timed), Slice(workload, 1, timed) };
        var verified = new VerificationResult(true, 40, 40, "units", "golden detail") { Discarded = 2, Requests = new VerificationRequests(3, 4, 5, 6) { PageRangeReads = 1 } };
        var summary = room.Summarize(spec, slices, verified);
        var text = new StringBuilder();
        text.Append("== summary\n").Append(JsonSerializer.Serialize(summary, JsonDefaults.Options).ReplaceLineEndings("\n")).Append('\n');
        var step = new StepRecord("run-1", "golden", Start, Start.AddSeconds(40), new RunEnvironment("Azurite", 1, "host", "m", "r", 2), 0, null, null,
            RunStatus.Completed, [], [summary]);
        text.Append("== step row\n").Append(RowText(RunRows.StepRow(step)));
        foreach (var slice in slices)
        {
            text.Append("== slice row\n").Append(RowText(SliceRows.SliceRow("run-1", slice)));
        }
        var run = new RunSummary
        {
            RunId = "run-1", Status = RunStatus.Completed, StartedUtc = Start, EndedUtc = Start.AddSeconds(40), Spec = spec,
            Environment = new RunEnvironment("Azurite", 1, "host", "m", "r", 2), Workloads = [summary],
        };
        foreach (var e in TelemetryEvents.ForWorkloads(run, run.Workloads))
        {
            text.Append("== event ").Append(e.Name).Append('\n');
            text.Append(string.Concat(e.Properties.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => $"{p.Key}={p.Value}\n")));
            text.Append(string.Concat(e.Measurements.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => $"{p.Key}={p.Value.ToString("R", CultureInfo.InvariantCulture)}\n")));
        }
        return text.ToString();
    }

    private static string RowText(TableEntity row) =>
        $"{row.PartitionKey} | {row.RowKey}\n" + string.Concat(row.Keys.Where(k => k is not ("PartitionKey" or "RowKey" or "odata.etag" or "Timestamp"))
            .OrderBy(k => k, StringComparer.Ordinal).Select(k => $"{k}: {ValueText(row[k])}\n"));

    private static string ValueText(object? v) => v switch
    {
        null => "null",
        byte[] b => "binary " + Convert.ToBase64String(b),
        double d => "double " + d.ToString("R", CultureInfo.InvariantCulture),
        long l => "long " + l.ToString(CultureInfo.InvariantCulture),
        int i => "int " + i.ToString(CultureInfo.InvariantCulture),
        DateTime t => "date " + t.ToString("O", CultureInfo.InvariantCulture),
        DateTimeOffset t => "date " + t.ToString("O", CultureInfo.InvariantCulture),
        bool b => "bool " + (b ? "true" : "false"),
        _ => v.GetType().Name + " " + Convert.ToString(v, CultureInfo.InvariantCulture),
    };

    /// <summary>Every section, each with its defaults (count) or with the knobs that change the words and figures (timed).</summary>
    private static RunSpec SpecOf(bool timed) => new()
    {
        Scenario = "golden",
        TableInsert = timed ? new TableInsertSpec { DurationSeconds = 30, TargetOperationsPerSecond = 200, BatchSize = 1, WarmupOperations = 2 } : new TableInsertSpec(),
        BlobUpload = timed ? new BlobUploadSpec { DurationSeconds = 30, VerifyContent = true, BlockSizeBytes = 1 << 20 } : new BlobUploadSpec(),
        PageBlobUpload = timed ? new PageBlobUploadSpec { DurationSeconds = 30, VerifyContent = true, PageRangeBytes = 1 << 20 } : new PageBlobUploadSpec(),
        TableRead = timed ? new TableReadSpec { DurationSeconds = 30, Operation = TableReadSpec.Query, TargetOperationsPerSecond = 100 } : new TableReadSpec(),
        BlobDownload = timed ? new BlobDownloadSpec { DurationSeconds = 30, RangeSizeBytes = 1 << 20, VerifyContent = true } : new BlobDownloadSpec(),
    };

    private static string Histogram(params long[] micros)
    {
        var h = LatencyHistograms.Create();
        foreach (long m in micros)
        {
            h.RecordValue(m);
        }
        return LatencyHistograms.Encode(h);
    }

    /// <summary>A slice with every field set, different per slice index, and open-loop histograms when timed.</summary>
    private static SliceResult Slice(string workload, int index, bool timed)
    {
        long k = index + 1;
        long unixStart = (long)(Start - DateTime.UnixEpoch).TotalSeconds;
        long[] ops = [5 * k, 7 * k, 6 * k, 8 * k, 4 * k];
        long[] units = [.. ops.Select(o => o * 1_000_003)];
        return new SliceResult
        {
            StepId = "run-1-s000", AttemptId = $"att{index:D5}", Workload = workload, SliceIndex = index, TargetIndex = index, Host = "host",
            StartedUtc = Start.AddMilliseconds(250 * k), EndedUtc = Start.AddSeconds(5).AddMilliseconds(125 * k), StartLagSeconds = 0.01 * k, Rerun = index == 1,
            Counts = new OutcomeCounts { Operations = 40 * k, Succeeded = 30 * k, Throttled = 5 * k, TimedOut = k, ServerErrors = 2 * k, ClientErrors = k, NetworkErrors = k },
            Units = units.Sum(), WarmupOperations = 3 * k, WarmupUnits = 2_000_000 * k, Objects = 4 * k, CommittedUnits = 4_000_000 * k, Planned = 5 * k,
            UnitsAttempted = units.Sum() + 9_000_000 * k, ObjectsFailed = k, FailedObjectUnits = 500_000 * k,
            LatencyHistogram = Histogram(1_000 * k, 2_500, 3_700 * k, 12_000, 45_000 + k),
            ServiceTimeHistogram = timed ? Histogram(900 * k, 2_000, 3_000 * k, 11_000) : null,
            LagHistogram = timed ? Histogram(0, 500 * k, 2_000) : null,
            DroppedOperations = timed ? 2 * k : 0,
            Timeline = new Timeline(unixStart, 1, ops, units),
            Canceled = false, StopReason = index == 1 ? "storage unreachable" : null, Notes = index == 1 ? ["a note"] : [],
            ProcessId = 100 + index, ProcessCpuSecondsAtStart = 1.5 * k, ProcessCpuSecondsAtEnd = 3.25 * k,
            ContentMd5 = "bWQ1", MatchedReads = 28 * k, Mismatches = index, WrongDownloads = index,
            FirstByteHistogram = Histogram(300 * k, 800, 1_200),
            Requests = new SliceRequests
            {
                Wire = 60 * k, PrimingWrites = 4 * k, PrimingEntities = 400 * k, PrimingProbes = 1, PrimingDeletes = 2 * k, PrimingRequests = 7 * k,
                PrimingThrottled = k, PrimingFailed = k, BlockLists = 4 * k, BlockListsFailed = index, PrimingReads = 3 * k,
            },
        };
    }
}
