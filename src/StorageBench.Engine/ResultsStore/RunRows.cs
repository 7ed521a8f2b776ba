using Azure.Data.Tables;
using StorageBench.Engine.Comparison;
using C = StorageBench.Engine.ResultsStore.ResultsColumns;

namespace StorageBench.Engine.ResultsStore;

/// <summary>
/// Run and step rows to and from their table entities: pure mapping, no storage calls. Numbers are
/// typed columns (Int64 counts and bytes, Double rates and latencies), never strings.
/// </summary>
public static class RunRows
{
    /// <summary>Inverted ticks first, so the newest run sorts first within a scenario.</summary>
    public static string RunRowKey(DateTime startedUtc, string runId) => $"{DateTime.MaxValue.Ticks - startedUtc.Ticks:D19}-{runId}";

    /// <summary>The newest <paramref name="max"/> rows by start, whatever their scenario; a run's rows keep their RowKey order (its own row, then its steps).</summary>
    public static IEnumerable<TableEntity> Newest(IEnumerable<TableEntity> rows, int max) =>
        rows.OrderBy(r => r.RowKey, StringComparer.Ordinal).ThenBy(r => r.PartitionKey, StringComparer.Ordinal).Take(max);

    /// <summary>The columns every run and step row has.</summary>
    private static TableEntity RowOf(string scenario, string rowKey, string runId, string status, DateTime startedUtc, DateTime endedUtc,
        RunEnvironment environment, IEnumerable<string> errors, IReadOnlyList<string> notes, IReadOnlyList<UnmeasuredWorkload> unmeasured)
    {
        var row = new TableEntity(scenario, rowKey)
        {
            [C.RunId] = runId,
            [C.Status] = status,
            [C.StartedUtc] = DateTime.SpecifyKind(startedUtc, DateTimeKind.Utc),
            [C.EndedUtc] = DateTime.SpecifyKind(endedUtc, DateTimeKind.Utc),
            [C.TargetKind] = environment.TargetKind,
            [C.Host] = environment.Host,
            [C.Instances] = (long)environment.Instances,
            [C.Workers] = (long)environment.Workers,
            [C.Errors] = string.Join("\n", errors),
        };
        // How busy the machine was and which build ran: absent when unknown (older rows, or off Linux). Notes and workloads
        // without figures: absent when there are none.
        foreach (var (column, value) in new (string, object?)[]
        {
            (C.Notes, notes.Count == 0 ? null : string.Join("\n", notes)),
            (C.Unmeasured, unmeasured.Count == 0 ? null : string.Join("\n", unmeasured.Select(u => $"{Reports.ReportWriter.Label(u.Workload, u.StepParameter, u.StepValue)}: {u.Reason}"))),
            (C.LoadAverageStart, environment.LoadAverageStart), (C.LoadAverageEnd, environment.LoadAverageEnd),
            (C.OtherProcessesCpuShare, environment.OtherProcessesCpuShare), (C.ToolVersion, environment.ToolVersion),
            (C.ToolCommit, environment.ToolCommit), (C.EmulatorVersion, environment.EmulatorVersion),
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
        new(r.GetString(C.TargetKind) ?? "", (int)(r.GetInt64(C.Instances) ?? 0), r.GetString(C.Host) ?? "", "", "", 0)
        {
            Workers = (int)(r.GetInt64(C.Workers) ?? 0),
            LoadAverageStart = r.GetDouble(C.LoadAverageStart), LoadAverageEnd = r.GetDouble(C.LoadAverageEnd),
            OtherProcessesCpuShare = r.GetDouble(C.OtherProcessesCpuShare), ToolVersion = r.GetString(C.ToolVersion),
            ToolCommit = r.GetString(C.ToolCommit), EmulatorVersion = r.GetString(C.EmulatorVersion),
        };

    /// <summary>A step's row: for a plain run the run row itself, for a sweep or search the row of its value (RowKey suffix -000, -001, …).</summary>
    public static TableEntity StepRow(StepRecord s)
    {
        string rowKey = s.Parameter is null ? RunRowKey(s.RunStartedUtc, s.RunId) : $"{RunRowKey(s.RunStartedUtc, s.RunId)}-{s.StepIndex:D3}";
        var row = RowOf(s.Scenario, rowKey, s.RunId, s.Status, s.RunStartedUtc, s.EndedUtc, s.Environment, s.Errors, s.Notes, s.Unmeasured);
        if (s.Parameter is not null)
        {
            row[C.StepParameter] = s.Parameter;
            row[C.StepValue] = s.Value ?? 0;
        }
        foreach (var w in s.Workloads)
        {
            var kind = WorkloadKind.Of(w.Workload);
            var c = WorkloadColumns.Of(kind);
            row[c.Operations] = w.Operations;
            row[c.Succeeded] = w.Succeeded;
            row[c.Failed] = w.Failed;
            row[c.Throttled] = w.Throttled;
            row[c.TimedOut] = w.TimedOut;
            row[w.Entities is null ? c.Bytes : c.Entities] = w.Entities ?? w.Bytes ?? 0;
            row[c.Planned] = w.Planned;
            row[c.Stored] = w.Stored;
            row[c.UnstoredShare] = w.UnstoredShare;
            if (w.BlobsPlanned is not null)
            {
                row[c.ObjectsFailed] = w.BlobsFailed ?? 0;
                row[c.BytesSent] = w.BytesSent ?? 0;
                row[c.BytesSentForFailedObjects] = w.BytesSentForFailedBlobs ?? 0;
                row[c.BlockMegabytesPerSecond] = w.BlockThroughput?.MegabytesPerSecond ?? 0;
            }
            row[c.DurationSeconds] = w.DurationSeconds;
            row[c.OperationsPerSecond] = w.Throughput.OperationsPerSecond;
            row[c.RateColumn()] = kind.RateOf(w.Throughput) ?? 0;
            if (w.PeakPerSecond is { } peak)
            {
                row[c.PeakPerSecond] = peak;   // absent when the run covered no whole second
            }
            if (w.PerSecondSpread is { } spread)
            {
                // The run's own noise, for compare; absent on rows written before it was recorded.
                row[c.PerSecondMean] = spread.Mean;
                row[c.PerSecondDeviation] = spread.SecondToSecondDeviation;
                row[c.PerSecondSamples] = (long)spread.Samples;
            }
            if ((w.ClientCpuMicrosecondsPerEntity ?? w.ClientCpuMicrosecondsPerMegabyte) is { } cpu)
            {
                row[c.ClientCpu] = cpu;
            }
            // A figure of no samples is left out of the row, never 0: a filter such as TableLatencyP99Ms<30 must not take it for fast.
            void Figure(string column, double? value)
            {
                if (value is { } v)
                {
                    row[column] = v;
                }
            }
            Figure(c.LatencyP50Ms, w.LatencyMs.P50);
            Figure(c.LatencyP90Ms, w.LatencyMs.P90);
            Figure(c.LatencyP99Ms, w.LatencyMs.P99);
            Figure(c.LatencyMaxMs, w.LatencyMs.Max);
            Figure(c.ServiceTimeP50Ms, w.ServiceTimeMs?.P50);
            Figure(c.ServiceTimeP99Ms, w.ServiceTimeMs?.P99);
            if (w.ScheduleLag is { } lag)
            {
                Figure(c.ScheduleLagP99Ms, lag.P99Ms);
                Figure(c.ScheduleLagMaxMs, lag.MaxMs);
                row[c.LateRequests] = lag.LateRequests;
                row[c.DroppedOperations] = lag.DroppedOperations;
            }
            row[c.Verified] = w.Verified.Matched;
            row[c.LatencyHistogram] = Convert.FromBase64String(w.LatencyHistogram);
        }
        return row;
    }

    /// <summary>
    /// The run's own record once every step is done: status, errors and end time (merged into the run
    /// row of a plain run), the regression verdict, and for a sweep or search its own row with the parameter and the result.
    /// </summary>
    public static TableEntity RunRow(RunSummary s)
    {
        var row = RowOf(s.Spec?.Scenario ?? "(invalid)", RunRowKey(s.StartedUtc, s.RunId), s.RunId, s.Status, s.StartedUtc, s.EndedUtc, s.Environment, s.Errors, s.Notes, s.Unmeasured);
        if (s.Spec is { } spec)
        {
            // So compare can name what differs between two stored runs, and `storagebench plan` knows how each
            // step was set up (rows written before lack these).
            row[C.Spec] = System.Text.Json.JsonSerializer.Serialize(spec, JsonDefaults.Compact);
            row[C.TargetAccounts] = (long)s.Environment.TargetAccounts;
            row[C.ProcessorCount] = (long)s.Environment.ProcessorCount;
        }
        if (s.Regression is { } regression)
        {
            row[C.RegressionVerdict] = regression.Verdict;
            row[C.RegressionReason] = regression.Reason;
        }
        if ((s.Spec?.Sweep?.Parameter ?? s.Spec?.Saturation?.Parameter) is { } parameter)
        {
            // The sweep's own row: no figures of its own (its steps' rows hold them), excluded from baselines by StepParameter.
            row[C.StepParameter] = parameter;
        }
        // Every run row says how many steps it had (1 for a plain run), as the dashboard's list shows.
        row[C.Steps] = (long)s.Steps.Count;
        if (s.Saturation is { } sat)
        {
            row[C.SaturationReason] = sat.Reason;
            if (sat.StoppedBy is { } rule)
            {
                row[C.SaturationStoppedBy] = rule;
            }
            if (sat.HighestSustainableValue is { } highest)
            {
                row[C.SaturationHighest] = highest;
            }
            if (sat.KneeValue is { } knee)
            {
                row[C.SaturationKnee] = knee;
            }
        }
        return row;
    }

    /// <summary>The spec a run row records; null when it records none or one this build cannot read.</summary>
    public static Spec.RunSpec? SpecOf(TableEntity row)
    {
        try
        {
            return row.GetString(C.Spec) is { } json ? System.Text.Json.JsonSerializer.Deserialize<Spec.RunSpec>(json, JsonDefaults.Options) : null;
        }
        catch (System.Text.Json.JsonException)
        {
            return null;
        }
    }

    /// <summary>How a run was set up (its spec and environment), for the capacity planner; null for a step row or a row that predates these columns.</summary>
    public static Capacity.StoredRunSetup? SetupOf(TableEntity row) =>
        row.ContainsKey(C.StepValue) || row.GetString(C.Spec) is not { } json || Spec.RunSpecParser.Parse(json).Spec is not { } spec
            ? null
            : new Capacity.StoredRunSetup(spec, row.GetString(C.TargetKind) ?? "", (int)(row.GetInt64(C.TargetAccounts) ?? 1), (int)(row.GetInt64(C.ProcessorCount) ?? 0),
                row.GetDouble(C.SaturationKnee));

    /// <summary>A workload's figures from a run or step row; null when the row has none for it.</summary>
    public static WorkloadFigures? FiguresOf(TableEntity r, string workload)
    {
        if (WorkloadKind.Find(workload) is not { } kind || WorkloadColumns.Of(kind) is not { } c || r.GetInt64(c.Operations) is not { } operations)
        {
            return null;
        }
        double Num(string column) => r.GetDouble(column) ?? 0;
        // An empty histogram (a test row) cannot be decoded; the percentile columns stand in, without p95.
        var latency = r.GetBinary(c.LatencyHistogram) is { Length: > 0 } h ? SummaryCalculator.Latency(LatencyHistograms.Decode(Convert.ToBase64String(h))) : null;
        RateSpread? spread = r.GetDouble(c.PerSecondMean) is { } mean && r.GetDouble(c.PerSecondDeviation) is { } sd && r.GetInt64(c.PerSecondSamples) is { } n
            ? new RateSpread(mean, sd, (int)n)
            : null;
        return new WorkloadFigures(workload, r.GetString(C.StepParameter), r.GetDouble(C.StepValue), Num(c.RateColumn()),
            r.GetDouble(c.PeakPerSecond), latency?.P50 ?? Num(c.LatencyP50Ms), latency?.P95, latency?.P99 ?? Num(c.LatencyP99Ms), latency?.Max ?? Num(c.LatencyMaxMs),
            operations, r.GetInt64(c.Throttled) ?? 0, r.GetInt64(c.Failed) ?? 0, r.GetDouble(c.ClientCpu), spread)
        {
            LatencySamples = latency?.Samples, DurationSeconds = r.GetDouble(c.DurationSeconds),
        };
    }

    /// <summary>The figures of every workload a row holds, in the order a step runs them.</summary>
    public static IEnumerable<WorkloadFigures> AllFiguresOf(TableEntity r) =>
        WorkloadKind.All.Select(k => FiguresOf(r, k.Name)).OfType<WorkloadFigures>();
}
