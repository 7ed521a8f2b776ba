using Azure.Data.Tables;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads;

namespace StorageBench.Results;

/// <summary>
/// The results table: one row per run (PartitionKey = scenario, RowKey = inverted ticks so the newest
/// sorts first) and, in a second table, one row per slice (PartitionKey = run id). Numbers are typed
/// columns (Int64 counts and bytes, Double rates and latencies), never strings.
/// </summary>
public sealed class ResultsTableStore(StorageTarget target, string runsTable = ResultsTableStore.DefaultRunsTable, string slicesTable = ResultsTableStore.DefaultSlicesTable)
{
    public const string DefaultRunsTable = "StorageBenchRuns";
    public const string DefaultSlicesTable = "StorageBenchSlices";

    public static string RunRowKey(DateTime startedUtc, string runId) => $"{DateTime.MaxValue.Ticks - startedUtc.Ticks:D19}-{runId}";

    public async Task SaveAsync(RunSummary summary, IReadOnlyList<SliceResult> sliceResults, CancellationToken ct)
    {
        using var clients = target.CreateClients(new() { SdkRetries = true });
        var runs = clients.Tables.GetTableClient(runsTable);
        var slices = clients.Tables.GetTableClient(slicesTable);
        await runs.CreateIfNotExistsAsync(ct).ConfigureAwait(false);
        await slices.CreateIfNotExistsAsync(ct).ConfigureAwait(false);

        foreach (var row in RunRows(summary))
        {
            await runs.UpsertEntityAsync(row, TableUpdateMode.Replace, ct).ConfigureAwait(false);
        }
        var sliceRows = sliceResults.Select(s => SliceRow(summary.RunId, s)).ToList();
        foreach (var chunk in sliceRows.Chunk(100))
        {
            await slices.SubmitTransactionAsync(chunk.Select(e => new TableTransactionAction(TableTransactionActionType.UpsertReplace, e)), ct).ConfigureAwait(false);
        }
    }

    /// <summary>One row per run, or for sweeps and searches one row per step value (RowKey suffix -000, -001, …).</summary>
    public static IReadOnlyList<TableEntity> RunRows(RunSummary s)
    {
        var steps = s.Workloads.GroupBy(w => w.StepValue).ToList();
        if (steps.Count <= 1 && s.Workloads.All(w => w.StepParameter is null))
        {
            return [RunRow(s, RunRowKey(s.StartedUtc, s.RunId), s.Workloads)];
        }
        return [.. steps.Select((g, i) =>
        {
            var row = RunRow(s, $"{RunRowKey(s.StartedUtc, s.RunId)}-{i:D3}", [.. g]);
            row["StepParameter"] = g.First().StepParameter;
            row["StepValue"] = g.Key ?? 0;
            return row;
        })];
    }

    private static TableEntity RunRow(RunSummary s, string rowKey, IReadOnlyList<WorkloadSummary> workloads)
    {
        var row = new TableEntity(s.Spec?.Scenario ?? "(invalid)", rowKey)
        {
            ["RunId"] = s.RunId,
            ["Status"] = s.Status,
            ["StartedUtc"] = DateTime.SpecifyKind(s.StartedUtc, DateTimeKind.Utc),
            ["EndedUtc"] = DateTime.SpecifyKind(s.EndedUtc, DateTimeKind.Utc),
            ["TargetKind"] = s.Environment.TargetKind,
            ["Host"] = s.Environment.Host,
            ["Instances"] = (long)s.Environment.Instances,
            ["Errors"] = string.Join("\n", s.Errors),
        };
        if (s.Regression is { } regression)
        {
            row["RegressionVerdict"] = regression.Verdict;
            row["RegressionReason"] = regression.Reason;
        }
        foreach (var w in workloads)
        {
            string p = w.Workload == TableInsertWorkload.Name ? "Table" : "Blob";
            row[p + "Operations"] = w.Operations;
            row[p + "Succeeded"] = w.Succeeded;
            row[p + "Failed"] = w.Failed;
            row[p + "Throttled"] = w.Throttled;
            row[p + "TimedOut"] = w.TimedOut;
            row[p + (w.Entities is null ? "Bytes" : "Entities")] = w.Entities ?? w.Bytes ?? 0;
            row[p + "DurationSeconds"] = w.DurationSeconds;
            row[p + "OperationsPerSecond"] = w.Throughput.OperationsPerSecond;
            row[p + (w.Entities is null ? "MegabytesPerSecond" : "EntitiesPerSecond")] = w.Throughput.MegabytesPerSecond ?? w.Throughput.EntitiesPerSecond ?? 0;
            if (w.PeakPerSecond is { } peak)
            {
                row[p + "PeakPerSecond"] = peak;   // absent when the run covered no whole second
            }
            row[p + "LatencyP50Ms"] = w.LatencyMs.P50;
            row[p + "LatencyP90Ms"] = w.LatencyMs.P90;
            row[p + "LatencyP99Ms"] = w.LatencyMs.P99;
            row[p + "LatencyMaxMs"] = w.LatencyMs.Max;
            row[p + "Verified"] = w.Verified.Matched;
            row[p + "LatencyHistogram"] = Convert.FromBase64String(w.LatencyHistogram);
        }
        return row;
    }

    private static TableEntity SliceRow(string runId, SliceResult s) => new(runId, $"{s.StepId}-{s.Workload}-{s.SliceIndex:D4}")
    {
        ["Host"] = s.Host,
        ["StartedUtc"] = DateTime.SpecifyKind(s.StartedUtc, DateTimeKind.Utc),
        ["EndedUtc"] = DateTime.SpecifyKind(s.EndedUtc, DateTimeKind.Utc),
        ["Operations"] = s.Counts.Operations,
        ["Succeeded"] = s.Counts.Succeeded,
        ["Throttled"] = s.Counts.Throttled,
        ["TimedOut"] = s.Counts.TimedOut,
        ["Units"] = s.Units,
        ["DurationSeconds"] = (s.EndedUtc - s.StartedUtc).TotalSeconds,
        ["LatencyHistogram"] = Convert.FromBase64String(s.LatencyHistogram),
    };

    /// <summary>Newest first, for one scenario.</summary>
    public Task<IReadOnlyList<TableEntity>> ListRunsAsync(string scenario, int max, CancellationToken ct) =>
        QueryRunsAsync(new RunFilter(scenario), max, ct);

    /// <summary>Run rows matching the filter (newest first within a scenario), at most <paramref name="max"/>.</summary>
    public async Task<IReadOnlyList<TableEntity>> QueryRunsAsync(RunFilter filter, int max, CancellationToken ct)
    {
        using var clients = target.CreateClients(new() { SdkRetries = true });
        var runs = clients.Tables.GetTableClient(runsTable);
        var list = new List<TableEntity>();
        string odata = filter.ToODataFilter();
        if (!await ExistsAsync(clients, runsTable, ct).ConfigureAwait(false))
        {
            return list;
        }
        await foreach (var e in runs.QueryAsync<TableEntity>(odata.Length == 0 ? null : odata, cancellationToken: ct))
        {
            list.Add(e);
            if (list.Count >= max)
            {
                break;
            }
        }
        return list;
    }

    /// <summary>
    /// The trailing baseline for a run: metric histories from the scenario's earlier completed,
    /// non-sweep runs (newest first), for each headline metric the current run has.
    /// </summary>
    public async Task<IReadOnlyList<MetricHistory>> BaselineAsync(RunSummary current, int maxRuns, CancellationToken ct)
    {
        var rows = (await QueryRunsAsync(new RunFilter(current.Spec!.Scenario, UntilUtc: current.StartedUtc), maxRuns * 4 + 10, ct).ConfigureAwait(false))
            .Where(r => r.GetString("Status") == "Completed" && !r.ContainsKey("StepParameter") && r.GetString("RunId") != current.RunId)
            .Take(maxRuns)
            .ToList();
        var currentRow = RunRows(current)[0];
        var metrics = new List<MetricHistory>();
        foreach (var (column, higherIsBetter) in new[] { ("TableEntitiesPerSecond", true), ("TableLatencyP99Ms", false), ("BlobMegabytesPerSecond", true), ("BlobLatencyP99Ms", false) })
        {
            if (currentRow.GetDouble(column) is { } value)
            {
                metrics.Add(new MetricHistory(column, higherIsBetter, value, [.. rows.Select(r => r.GetDouble(column)).OfType<double>()]));
            }
        }
        return metrics;
    }

    private static async Task<bool> ExistsAsync(StorageClients clients, string table, CancellationToken ct)
    {
        await foreach (var _ in clients.Tables.QueryAsync(TableClient.CreateQueryFilter($"TableName eq {table}"), cancellationToken: ct))
        {
            return true;
        }
        return false;
    }

    public async Task<IReadOnlyList<TableEntity>> ListSlicesAsync(string runId, CancellationToken ct)
    {
        using var clients = target.CreateClients(new() { SdkRetries = true });
        var slices = clients.Tables.GetTableClient(slicesTable);
        var list = new List<TableEntity>();
        await foreach (var e in slices.QueryAsync<TableEntity>(TableClient.CreateQueryFilter($"PartitionKey eq {runId}"), cancellationToken: ct))
        {
            list.Add(e);
        }
        return list;
    }
}
