using Azure;
using Azure.Data.Tables;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.StorageCalls;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads;

namespace StorageBench.Engine.ResultsStore;

/// <summary>What a step stores about itself: the run it belongs to, its place in a sweep, and its outcome.</summary>
/// <param name="Workloads">The step's workloads; their timelines and distributions are not stored (the headline figures and the histogram are).</param>
public sealed record StepRecord(string RunId, string Scenario, DateTime RunStartedUtc, DateTime EndedUtc, RunEnvironment Environment,
    int StepIndex, string? Parameter, double? Value, string Status, IReadOnlyList<string> Errors, IReadOnlyList<WorkloadSummary> Workloads);

/// <summary>The figures of a run that the nightly regression check compares with the scenario's earlier runs (results-table column names).</summary>
public sealed record RegressionInput(string Scenario, string RunId, DateTime StartedUtc, IReadOnlyDictionary<string, double> Metrics)
{
    /// <summary>Why the run cannot be judged (docs/comparing.md, "The rule"): a workload measured under 5 whole seconds with all slices active.</summary>
    public string? NotJudgedReason { get; init; }

    public static readonly IReadOnlyList<(string Column, bool HigherIsBetter)> Columns =
        [("TableEntitiesPerSecond", true), ("TableLatencyP99Ms", false), ("BlobMegabytesPerSecond", true), ("BlobLatencyP99Ms", false)];

    public static RegressionInput From(string scenario, string runId, DateTime startedUtc, IEnumerable<WorkloadSummary> workloads)
    {
        var metrics = new Dictionary<string, double>();
        workloads = workloads.ToList();
        foreach (var w in workloads)
        {
            bool table = w.Workload == TableInsertWorkload.Name;
            metrics[table ? "TableEntitiesPerSecond" : "BlobMegabytesPerSecond"] = (table ? w.Throughput.EntitiesPerSecond : w.Throughput.MegabytesPerSecond) ?? 0;
            metrics[table ? "TableLatencyP99Ms" : "BlobLatencyP99Ms"] = w.LatencyMs.P99;
        }
        var list = (List<WorkloadSummary>)workloads;
        var rule = Comparison.NoiseRule.Default;
        var tooShort = list.FirstOrDefault(w => rule.Usable(w.PerSecondSpread) is null);
        return new RegressionInput(scenario, runId, startedUtc, metrics)
        {
            NotJudgedReason = tooShort is null ? null
                : $"{tooShort.Workload} was measured over {tooShort.PerSecondSpread?.Samples ?? 0} whole second(s) with every slice active; at least {rule.MinSamples} are needed to judge it",
        };
    }
}

/// <summary>
/// The results tables: one row per run (PartitionKey = scenario, RowKey = inverted ticks so the newest
/// sorts first) — for a sweep or search one row per step value plus one for the run — and, in a
/// second table, one row per slice execution (PartitionKey = run id). Numbers are typed columns
/// (Int64 counts and bytes, Double rates and latencies), never strings. A third table holds what
/// running runs say to each other: cancel requests, which every slice polls, and each slice's live
/// progress (PartitionKey = run id).
/// </summary>
public sealed class ResultsTableStore(StorageTarget target, string runsTable = ResultsTableStore.DefaultRunsTable,
    string slicesTable = ResultsTableStore.DefaultSlicesTable, string signalsTable = ResultsTableStore.DefaultSignalsTable, StorageCallPolicy? policy = null) : IDisposable
{
    public const string DefaultRunsTable = "StorageBenchRuns";
    public const string DefaultSlicesTable = "StorageBenchSlices";
    public const string DefaultSignalsTable = "StorageBenchSignals";

    /// <summary>The account the results tables live in (checked before a run is accepted).</summary>
    public StorageTarget Target => target;

    // One client pipeline for the store's life (retries on: bookkeeping, not measurement), and a quick
    // one for the cancel poll and progress, which must answer within seconds or not at all.
    private readonly Lazy<StorageClients> _clients = new(() => target.CreateClients(new()
        { SdkRetries = true, RequestTimeoutSeconds = (policy ?? StorageCallPolicy.Default).ResultsTry.TotalSeconds }));
    private readonly Lazy<StorageClients> _poll = new(() => target.CreateClients(new()
        { SdkRetries = false, RequestTimeoutSeconds = (policy ?? StorageCallPolicy.Default).Quick.TotalSeconds }));
    private readonly System.Collections.Concurrent.ConcurrentDictionary<string, Lazy<Task>> _created = new();

    /// <summary>The deadlines of the calls outside the measured path: this store's own, and the activities' around it.</summary>
    public StorageCallPolicy Policy { get; } = policy ?? StorageCallPolicy.Default;

    public void Dispose()
    {
        if (_clients.IsValueCreated)
        {
            _clients.Value.Dispose();
        }
        if (_poll.IsValueCreated)
        {
            _poll.Value.Dispose();
        }
    }

    public static string RunRowKey(DateTime startedUtc, string runId) => $"{DateTime.MaxValue.Ticks - startedUtc.Ticks:D19}-{runId}";

    /// <summary>A step's row: for a plain run the run row itself, for a sweep or search the row of its value (RowKey suffix -000, -001, …).</summary>
    public async Task SaveStepAsync(StepRecord step, CancellationToken ct)
    {
        var runs = await TableAsync(runsTable, ct).ConfigureAwait(false);
        await runs.UpsertEntityAsync(StepRow(step), TableUpdateMode.Replace, ct).ConfigureAwait(false);
    }

    /// <summary>
    /// The run's own record once every step is done: status, errors and end time (merged into the run
    /// row of a plain run), the regression verdict, and for a sweep or search its own row with the parameter and the result.
    /// </summary>
    public async Task SaveRunAsync(RunSummary run, CancellationToken ct)
    {
        var runs = await TableAsync(runsTable, ct).ConfigureAwait(false);
        await runs.UpsertEntityAsync(RunRow(run), TableUpdateMode.Merge, ct).ConfigureAwait(false);
    }

    /// <summary>Every row of an assembled summary (tests and imports): one per step, and the run's own.</summary>
    public async Task SaveAsync(RunSummary summary, CancellationToken ct)
    {
        var steps = summary.Workloads.GroupBy(w => w.StepValue).Select((g, i) => new StepRecord(summary.RunId, summary.Spec?.Scenario ?? "", summary.StartedUtc,
            summary.EndedUtc, summary.Environment, i, g.First().StepParameter, g.Key, summary.Status, summary.Errors, [.. g]));
        foreach (var step in steps)
        {
            await SaveStepAsync(step, ct).ConfigureAwait(false);
        }
        await SaveRunAsync(summary, ct).ConfigureAwait(false);
    }

    /// <summary>The columns every run and step row has.</summary>
    private static TableEntity RowOf(string scenario, string rowKey, string runId, string status, DateTime startedUtc, DateTime endedUtc,
        RunEnvironment environment, IEnumerable<string> errors)
    {
        var row = new TableEntity(scenario, rowKey)
        {
            ["RunId"] = runId,
            ["Status"] = status,
            ["StartedUtc"] = DateTime.SpecifyKind(startedUtc, DateTimeKind.Utc),
            ["EndedUtc"] = DateTime.SpecifyKind(endedUtc, DateTimeKind.Utc),
            ["TargetKind"] = environment.TargetKind,
            ["Host"] = environment.Host,
            ["Instances"] = (long)environment.Instances,
            ["Errors"] = string.Join("\n", errors),
        };
        // How busy the machine was and which build ran: absent when unknown (older rows, or off Linux).
        foreach (var (column, value) in new (string, object?)[]
        {
            ("LoadAverageStart", environment.LoadAverageStart), ("LoadAverageEnd", environment.LoadAverageEnd),
            ("OtherProcessesCpuShare", environment.OtherProcessesCpuShare), ("ToolVersion", environment.ToolVersion),
            ("ToolCommit", environment.ToolCommit), ("EmulatorVersion", environment.EmulatorVersion),
        })
        {
            if (value is not null)
            {
                row[column] = value;
            }
        }
        return row;
    }

    /// <summary>The environment columns of a run or step row (what <see cref="RowOf"/> wrote).</summary>
    public static RunEnvironment EnvironmentOf(TableEntity r) =>
        new(r.GetString("TargetKind") ?? "", (int)(r.GetInt64("Instances") ?? 0), r.GetString("Host") ?? "", "", "", 0)
        {
            LoadAverageStart = r.GetDouble("LoadAverageStart"), LoadAverageEnd = r.GetDouble("LoadAverageEnd"),
            OtherProcessesCpuShare = r.GetDouble("OtherProcessesCpuShare"), ToolVersion = r.GetString("ToolVersion"),
            ToolCommit = r.GetString("ToolCommit"), EmulatorVersion = r.GetString("EmulatorVersion"),
        };

    private static TableEntity StepRow(StepRecord s)
    {
        string rowKey = s.Parameter is null ? RunRowKey(s.RunStartedUtc, s.RunId) : $"{RunRowKey(s.RunStartedUtc, s.RunId)}-{s.StepIndex:D3}";
        var row = RowOf(s.Scenario, rowKey, s.RunId, s.Status, s.RunStartedUtc, s.EndedUtc, s.Environment, s.Errors);
        if (s.Parameter is not null)
        {
            row["StepParameter"] = s.Parameter;
            row["StepValue"] = s.Value ?? 0;
        }
        foreach (var w in s.Workloads)
        {
            string p = w.Workload == TableInsertWorkload.Name ? "Table" : "Blob";
            row[p + "Operations"] = w.Operations;
            row[p + "Succeeded"] = w.Succeeded;
            row[p + "Failed"] = w.Failed;
            row[p + "Throttled"] = w.Throttled;
            row[p + "TimedOut"] = w.TimedOut;
            row[p + (w.Entities is null ? "Bytes" : "Entities")] = w.Entities ?? w.Bytes ?? 0;
            row[p + "Planned"] = w.Planned;
            row[p + "Stored"] = w.Stored;
            row[p + "UnstoredShare"] = w.UnstoredShare;
            if (w.BlobsPlanned is not null)
            {
                row["BlobsFailed"] = w.BlobsFailed ?? 0;
                row[p + "BytesSent"] = w.BytesSent ?? 0;
                row[p + "BytesSentForFailedBlobs"] = w.BytesSentForFailedBlobs ?? 0;
                row[p + "BlockMegabytesPerSecond"] = w.BlockThroughput?.MegabytesPerSecond ?? 0;
            }
            row[p + "DurationSeconds"] = w.DurationSeconds;
            row[p + "OperationsPerSecond"] = w.Throughput.OperationsPerSecond;
            row[p + (w.Entities is null ? "MegabytesPerSecond" : "EntitiesPerSecond")] = w.Throughput.MegabytesPerSecond ?? w.Throughput.EntitiesPerSecond ?? 0;
            if (w.PeakPerSecond is { } peak)
            {
                row[p + "PeakPerSecond"] = peak;   // absent when the run covered no whole second
            }
            if (w.PerSecondSpread is { } spread)
            {
                // The run's own noise, for compare; absent on rows written before it was recorded.
                row[p + "PerSecondMean"] = spread.Mean;
                row[p + "PerSecondDeviation"] = spread.SecondToSecondDeviation;
                row[p + "PerSecondSamples"] = (long)spread.Samples;
            }
            if ((w.ClientCpuMicrosecondsPerEntity ?? w.ClientCpuMicrosecondsPerMegabyte) is { } cpu)
            {
                row[p + CpuColumn(p)] = cpu;
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

    /// <summary>Driver CPU per unit: per entity for the table workload, per MB for blobs.</summary>
    private static string CpuColumn(string prefix) => prefix == "Table" ? "ClientCpuMicrosecondsPerEntity" : "ClientCpuMicrosecondsPerMegabyte";

    private static TableEntity RunRow(RunSummary s)
    {
        var row = RowOf(s.Spec?.Scenario ?? "(invalid)", RunRowKey(s.StartedUtc, s.RunId), s.RunId, s.Status, s.StartedUtc, s.EndedUtc, s.Environment, s.Errors);
        if (s.Spec is { } spec)
        {
            // So compare can name what differs between two stored runs, and `storagebench plan` knows how each
            // step was set up (rows written before lack these).
            row["Spec"] = System.Text.Json.JsonSerializer.Serialize(spec, JsonDefaults.Compact);
            row["TargetAccounts"] = (long)s.Environment.TargetAccounts;
            row["ProcessorCount"] = (long)s.Environment.ProcessorCount;
        }
        if (s.Regression is { } regression)
        {
            row["RegressionVerdict"] = regression.Verdict;
            row["RegressionReason"] = regression.Reason;
        }
        if ((s.Spec?.Sweep?.Parameter ?? s.Spec?.Saturation?.Parameter) is { } parameter)
        {
            // The sweep's own row: no figures of its own (its steps' rows hold them), excluded from baselines by StepParameter.
            row["StepParameter"] = parameter;
            row["Steps"] = (long)s.Steps.Count;
        }
        if (s.Saturation is { } sat)
        {
            row["SaturationReason"] = sat.Reason;
            if (sat.StoppedBy is { } rule)
            {
                row["SaturationStoppedBy"] = rule;
            }
            if (sat.HighestSustainableValue is { } highest)
            {
                row["SaturationHighest"] = highest;
            }
            if (sat.KneeValue is { } knee)
            {
                row["SaturationKnee"] = knee;
            }
        }
        return row;
    }

    /// <summary>One slice execution's row, written by the slice itself (RowKey step-workload-slice-attempt).</summary>
    public async Task SaveSliceAsync(string runId, SliceResult s, CancellationToken ct)
    {
        var slices = await TableAsync(slicesTable, ct).ConfigureAwait(false);
        await slices.UpsertEntityAsync(new TableEntity(runId, SliceRowKey(s.StepId, s.Workload, s.SliceIndex, s.AttemptId))
        {
            ["StepId"] = s.StepId,
            ["Workload"] = s.Workload,
            ["SliceIndex"] = (long)s.SliceIndex,
            ["Attempt"] = s.AttemptId,
            ["TargetAccount"] = (long)s.TargetIndex,
            ["Host"] = s.Host,
            ["StartedUtc"] = DateTime.SpecifyKind(s.StartedUtc, DateTimeKind.Utc),
            ["EndedUtc"] = DateTime.SpecifyKind(s.EndedUtc, DateTimeKind.Utc),
            ["Operations"] = s.Counts.Operations,
            ["Succeeded"] = s.Counts.Succeeded,
            ["Failed"] = s.Counts.Failed,
            ["Throttled"] = s.Counts.Throttled,
            ["TimedOut"] = s.Counts.TimedOut,
            ["Units"] = s.Units,
            ["DurationSeconds"] = (s.EndedUtc - s.StartedUtc).TotalSeconds,
            ["StartLagSeconds"] = s.StartLagSeconds,
            ["Canceled"] = s.Canceled,
            ["LatencyHistogram"] = Convert.FromBase64String(s.LatencyHistogram),
        }, TableUpdateMode.Replace, ct).ConfigureAwait(false);
    }

    public static string SliceRowKey(string stepId, string workload, int slice, string attempt) => $"{stepId}-{workload}-{slice:D4}-{attempt}";

    /// <summary>Deletes the rows of slice executions whose results were not used (a repeated activity); returns how many.</summary>
    public async Task<int> DiscardSliceRowsAsync(string runId, string stepId, string workload, IReadOnlyCollection<string> acceptedAttempts, CancellationToken ct)
    {
        var slices = await TableAsync(slicesTable, ct).ConfigureAwait(false);
        string prefix = $"{stepId}-{workload}-";
        var stray = new List<TableEntity>();
        await foreach (var row in slices.QueryAsync<TableEntity>(
            TableClient.CreateQueryFilter($"PartitionKey eq {runId} and RowKey ge {prefix} and RowKey lt {prefix + "~"}"), select: ["PartitionKey", "RowKey", "Attempt"], cancellationToken: ct))
        {
            if (!acceptedAttempts.Contains(row.GetString("Attempt")))
            {
                stray.Add(row);
            }
        }
        foreach (var chunk in stray.Chunk(100))
        {
            await slices.SubmitTransactionAsync(chunk.Select(e => new TableTransactionAction(TableTransactionActionType.Delete, e, ETag.All)), ct).ConfigureAwait(false);
        }
        return stray.Count;
    }

    public async Task<IReadOnlyList<TableEntity>> ListSlicesAsync(string runId, CancellationToken ct)
    {
        var slices = _clients.Value.Tables.GetTableClient(slicesTable);
        var list = new List<TableEntity>();
        if (!await ExistsAsync(slicesTable, ct).ConfigureAwait(false))
        {
            return list;
        }
        await foreach (var e in slices.QueryAsync<TableEntity>(TableClient.CreateQueryFilter($"PartitionKey eq {runId}"), cancellationToken: ct))
        {
            list.Add(e);
        }
        return list;
    }

    /// <summary>The accepted executions' slice figures of each workload of a run, keyed by step id and workload.</summary>
    public async Task<IReadOnlyDictionary<(string StepId, string Workload), IReadOnlyList<SliceSummary>>> SliceSummariesAsync(string runId, CancellationToken ct)
    {
        var rows = await ListSlicesAsync(runId, ct).ConfigureAwait(false);
        return rows.GroupBy(r => (r.GetString("StepId"), r.GetString("Workload")))
            .ToDictionary(g => g.Key, g => (IReadOnlyList<SliceSummary>)[.. g.OrderBy(r => r.GetInt64("SliceIndex")).Select(SliceSummaryOf)]);
    }

    private static SliceSummary SliceSummaryOf(TableEntity r)
    {
        bool entities = r.GetString("Workload") == TableInsertWorkload.Name;
        double seconds = r.GetDouble("DurationSeconds") ?? 0;
        long units = r.GetInt64("Units") ?? 0;
        return new SliceSummary((int)(r.GetInt64("SliceIndex") ?? 0), (int)(r.GetInt64("TargetAccount") ?? 0), r.GetString("Host"), r.GetInt64("Operations") ?? 0,
            r.GetInt64("Succeeded") ?? 0, r.GetInt64("Throttled") ?? 0, r.GetInt64("Failed") ?? 0, units, seconds,
            seconds > 0 ? units / seconds / (entities ? 1 : 1e6) : 0, r.GetDouble("StartLagSeconds") ?? 0,
            SummaryCalculator.Latency(LatencyHistograms.Decode(Convert.ToBase64String(r.GetBinary("LatencyHistogram")))))
        {
            Attempt = r.GetString("Attempt"),
        };
    }

    /// <summary>Asks every slice of the run to stop (they poll it about once a second).</summary>
    public async Task RequestCancelAsync(string runId, CancellationToken ct)
    {
        var signals = await TableAsync(signalsTable, ct).ConfigureAwait(false);
        await signals.UpsertEntityAsync(new TableEntity(runId, "cancel"), TableUpdateMode.Replace, ct).ConfigureAwait(false);
    }

    public async Task<bool> IsCancelRequestedAsync(string runId, CancellationToken ct)
    {
        try
        {
            var found = await _poll.Value.Tables.GetTableClient(signalsTable).GetEntityIfExistsAsync<TableEntity>(runId, "cancel", ["PartitionKey"], ct).ConfigureAwait(false);
            return found.HasValue;
        }
        catch (RequestFailedException ex) when (ex.Status == 404)
        {
            return false;   // no signals table yet: nothing was ever canceled
        }
    }

    private static string ProgressKey(string stepId, string workload, int slice) => $"progress-{stepId}-{workload}-{slice:D3}";

    /// <summary>Replaces the slice's progress row. Quick and without retries: progress may skip a beat, a slice must not wait for it.</summary>
    public async Task SaveProgressAsync(string runId, SliceProgress p, CancellationToken ct)
    {
        var row = new TableEntity(runId, ProgressKey(p.StepId, p.Workload, p.Slice))
        {
            ["StepId"] = p.StepId,
            ["Workload"] = p.Workload,
            ["Slice"] = p.Slice,
            ["Operations"] = p.Counts.Operations,
            ["Units"] = p.Counts.Units,
            ["Throttled"] = p.Counts.Throttled,
            ["Failed"] = p.Counts.Failed,
            ["UnitsPerSecond"] = p.UnitsPerSecond,
            ["PlannedUnits"] = p.PlannedUnits,
            ["DurationSeconds"] = p.DurationSeconds,
            ["StartAtUtc"] = DateTime.SpecifyKind(p.StartAtUtc, DateTimeKind.Utc),
            ["UpdatedUtc"] = DateTime.SpecifyKind(p.UpdatedUtc, DateTimeKind.Utc),
            ["Done"] = p.Done,
        };
        var table = _poll.Value.Tables.GetTableClient(signalsTable);
        try
        {
            await table.UpsertEntityAsync(row, TableUpdateMode.Replace, ct).ConfigureAwait(false);
        }
        catch (RequestFailedException ex) when (ex.Status == 404)
        {
            await table.CreateIfNotExistsAsync(ct).ConfigureAwait(false);
            await table.UpsertEntityAsync(row, TableUpdateMode.Replace, ct).ConfigureAwait(false);
        }
    }

    /// <summary>The progress rows of one step of a run (empty before any slice reported).</summary>
    public async Task<IReadOnlyList<SliceProgress>> ProgressAsync(string runId, string stepId, CancellationToken ct)
    {
        string from = $"progress-{stepId}-";
        var rows = new List<SliceProgress>();
        try
        {
            await foreach (var r in _poll.Value.Tables.GetTableClient(signalsTable).QueryAsync<TableEntity>(
                TableClient.CreateQueryFilter($"PartitionKey eq {runId} and RowKey ge {from} and RowKey lt {from[..^1] + "."}"), cancellationToken: ct).ConfigureAwait(false))
            {
                rows.Add(new SliceProgress(r.GetString("StepId"), r.GetString("Workload"), r.GetInt32("Slice") ?? 0,
                    new LiveCounts(r.GetInt64("Operations") ?? 0, r.GetInt64("Units") ?? 0, r.GetInt64("Throttled") ?? 0, r.GetInt64("Failed") ?? 0),
                    r.GetDouble("UnitsPerSecond") ?? 0, r.GetInt64("PlannedUnits") ?? 0, r.GetDouble("DurationSeconds") ?? 0,
                    r.GetDateTime("StartAtUtc") ?? default, r.GetDateTime("UpdatedUtc") ?? default, r.GetBoolean("Done") ?? false));
            }
        }
        catch (RequestFailedException ex) when (ex.Status == 404)
        {
            // No signals table yet: nothing has reported.
        }
        return rows;
    }

    /// <summary>Newest first, for one scenario.</summary>
    public Task<IReadOnlyList<TableEntity>> ListRunsAsync(string scenario, int max, CancellationToken ct) =>
        QueryRunsAsync(new RunFilter(scenario), max, ct);

    /// <summary>Run rows matching the filter (newest first within a scenario), at most <paramref name="max"/>.</summary>
    public async Task<IReadOnlyList<TableEntity>> QueryRunsAsync(RunFilter filter, int max, CancellationToken ct)
    {
        var runs = _clients.Value.Tables.GetTableClient(runsTable);
        var list = new List<TableEntity>();
        string odata = filter.ToODataFilter();
        if (!await ExistsAsync(runsTable, ct).ConfigureAwait(false))
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
    /// A stored run's figures for a comparison, from its run row (a plain run) or its step rows (a sweep
    /// or search; its own row gives the status); null when no row has this run id. Latency percentiles
    /// are read from the stored histogram, so p95 is there although it has no column.
    /// </summary>
    public async Task<RunFigures?> LoadRunFiguresAsync(string runId, CancellationToken ct)
    {
        var rows = new List<TableEntity>();
        if (await ExistsAsync(runsTable, ct).ConfigureAwait(false))
        {
            // Run ids are unique across scenarios; a results table is small enough to look the id up across partitions.
            await foreach (var row in _clients.Value.Tables.GetTableClient(runsTable).QueryAsync<TableEntity>(TableClient.CreateQueryFilter($"RunId eq {runId}"), cancellationToken: ct))
            {
                rows.Add(row);
            }
        }
        if (rows.Count == 0)
        {
            return null;
        }
        var own = rows.FirstOrDefault(r => !r.ContainsKey("StepValue")) ?? rows[0];
        var workloads = rows.OrderBy(r => r.RowKey, StringComparer.Ordinal)
            .SelectMany(r => new[] { TableInsertWorkload.Name, BlobUploadWorkload.Name }.Select(w => FiguresOf(r, w)).OfType<WorkloadFigures>());
        return new RunFigures(runId, $"results table {runsTable}", own.PartitionKey, own.GetString("Status") ?? "", own.GetDateTimeOffset("StartedUtc")?.UtcDateTime ?? default,
            [.. workloads]) { Environment = EnvironmentOf(own), Spec = SpecOf(own) };
    }

    private static Spec.RunSpec? SpecOf(TableEntity row)
    {
        try
        {
            return row.GetString("Spec") is { } json ? System.Text.Json.JsonSerializer.Deserialize<Spec.RunSpec>(json, JsonDefaults.Options) : null;
        }
        catch (System.Text.Json.JsonException)
        {
            return null;
        }
    }

    /// <summary>
    /// The run-to-run spread of the scenario's earlier completed runs (newest first, at most
    /// <paramref name="maxRuns"/> a step), per workload and step, leaving out <paramref name="exclude"/>.
    /// With <paramref name="spec"/>, a run whose row records a different spec is left out too (a sweep's
    /// step rows record none and count).
    /// </summary>
    public async Task<IReadOnlyDictionary<string, RunToRunSpread>> RunToRunSpreadAsync(string scenario, IReadOnlyCollection<string> exclude, CancellationToken ct,
        Spec.RunSpec? spec = null, int maxRuns = 14)
    {
        string? specJson = spec is null ? null : System.Text.Json.JsonSerializer.Serialize(spec, JsonDefaults.Compact);
        var rows = (await QueryRunsAsync(new RunFilter(scenario), 500, ct).ConfigureAwait(false))
            .Where(r => r.GetString("Status") == RunStatus.Completed && !exclude.Contains(r.GetString("RunId"))
                && (specJson is null || r.GetString("Spec") is not { } recorded || recorded == specJson));
        return rows.SelectMany(r => new[] { TableInsertWorkload.Name, BlobUploadWorkload.Name }.Select(w => FiguresOf(r, w)).OfType<WorkloadFigures>())
            .GroupBy(w => RunToRunSpread.Key(w.Workload, w.StepParameter, w.StepValue))
            .Select(g => (g.Key, Spread: RunToRunSpread.Of([.. g.Take(maxRuns)])))
            .Where(x => x.Spread is not null)
            .ToDictionary(x => x.Key, x => x.Spread!);
    }

    /// <summary>How a stored run was set up (its spec and environment), for the capacity planner; null when its run row predates these columns or the run is unknown.</summary>
    public async Task<Capacity.StoredRunSetup?> LoadRunSetupAsync(string runId, CancellationToken ct)
    {
        if (!await ExistsAsync(runsTable, ct).ConfigureAwait(false))
        {
            return null;
        }
        await foreach (var row in _clients.Value.Tables.GetTableClient(runsTable).QueryAsync<TableEntity>(TableClient.CreateQueryFilter($"RunId eq {runId}"), cancellationToken: ct))
        {
            if (row.ContainsKey("StepValue") || row.GetString("Spec") is not { } json || Spec.RunSpecParser.Parse(json).Spec is not { } spec)
            {
                continue;
            }
            return new Capacity.StoredRunSetup(spec, row.GetString("TargetKind") ?? "", (int)(row.GetInt64("TargetAccounts") ?? 1), (int)(row.GetInt64("ProcessorCount") ?? 0),
                row.GetDouble("SaturationKnee"));
        }
        return null;
    }

    /// <summary>A workload's figures from a run or step row; null when the row has none for it.</summary>
    private static WorkloadFigures? FiguresOf(TableEntity r, string workload)
    {
        string p = workload == TableInsertWorkload.Name ? "Table" : "Blob";
        if (r.GetInt64(p + "Operations") is not { } operations)
        {
            return null;
        }
        double Num(string column) => r.GetDouble(p + column) ?? 0;
        // An empty histogram (a test row) cannot be decoded; the percentile columns stand in, without p95.
        var latency = r.GetBinary(p + "LatencyHistogram") is { Length: > 0 } h ? SummaryCalculator.Latency(LatencyHistograms.Decode(Convert.ToBase64String(h))) : null;
        RateSpread? spread = r.GetDouble(p + "PerSecondMean") is { } mean && r.GetDouble(p + "PerSecondDeviation") is { } sd && r.GetInt64(p + "PerSecondSamples") is { } n
            ? new RateSpread(mean, sd, (int)n)
            : null;
        return new WorkloadFigures(workload, r.GetString("StepParameter"), r.GetDouble("StepValue"), Num(p == "Table" ? "EntitiesPerSecond" : "MegabytesPerSecond"),
            r.GetDouble(p + "PeakPerSecond"), latency?.P50 ?? Num("LatencyP50Ms"), latency?.P95, latency?.P99 ?? Num("LatencyP99Ms"), latency?.Max ?? Num("LatencyMaxMs"),
            operations, r.GetInt64(p + "Throttled") ?? 0, r.GetInt64(p + "Failed") ?? 0, r.GetDouble(p + CpuColumn(p)), spread)
        {
            LatencySamples = latency?.Samples, DurationSeconds = r.GetDouble(p + "DurationSeconds"),
        };
    }

    /// <summary>
    /// The trailing baseline for a run: metric histories from the scenario's earlier completed,
    /// non-sweep runs (newest first), for each headline metric the current run has.
    /// </summary>
    public async Task<IReadOnlyList<MetricHistory>> BaselineAsync(RegressionInput current, int maxRuns, CancellationToken ct)
    {
        var rows = (await QueryRunsAsync(new RunFilter(current.Scenario, UntilUtc: current.StartedUtc), maxRuns * 4 + 10, ct).ConfigureAwait(false))
            .Where(r => r.GetString("Status") == RunStatus.Completed && !r.ContainsKey("StepParameter") && r.GetString("RunId") != current.RunId)
            .Take(maxRuns)
            .ToList();
        var metrics = new List<MetricHistory>();
        foreach (var (column, higherIsBetter) in RegressionInput.Columns)
        {
            if (current.Metrics.TryGetValue(column, out double value))
            {
                metrics.Add(new MetricHistory(column, higherIsBetter, value, [.. rows.Select(r => r.GetDouble(column)).OfType<double>()]));
            }
        }
        return metrics;
    }

    /// <summary>The table, created on first use by this store (a failed creation is tried again next time).</summary>
    private async Task<TableClient> TableAsync(string name, CancellationToken ct)
    {
        var table = _clients.Value.Tables.GetTableClient(name);
        var created = _created.GetOrAdd(name, _ => new Lazy<Task>(() => table.CreateIfNotExistsAsync(CancellationToken.None)));
        try
        {
            await created.Value.WaitAsync(ct).ConfigureAwait(false);
        }
        catch
        {
            _created.TryRemove(name, out _);
            throw;
        }
        return table;
    }

    private async Task<bool> ExistsAsync(string table, CancellationToken ct)
    {
        await foreach (var _ in _clients.Value.Tables.QueryAsync(TableClient.CreateQueryFilter($"TableName eq {table}"), cancellationToken: ct))
        {
            return true;
        }
        return false;
    }
}
