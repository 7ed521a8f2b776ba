using Azure.Data.Tables;
using P = StorageBench.Engine.ResultsStore.ResultsColumns.Progress;
using S = StorageBench.Engine.ResultsStore.ResultsColumns.Slice;

namespace StorageBench.Engine.ResultsStore;

/// <summary>
/// Slice rows (one per slice execution, PartitionKey = run id) and live progress rows (signals table,
/// PartitionKey = run id) to and from their table entities: pure mapping, no storage calls.
/// </summary>
public static class SliceRows
{
    public static string SliceRowKey(string stepId, string workload, int slice, string attempt) => $"{stepId}-{workload}-{slice:D4}-{attempt}";

    /// <summary>One slice execution's row (RowKey step-workload-slice-attempt).</summary>
    public static TableEntity SliceRow(string runId, SliceResult s) => new(runId, SliceRowKey(s.StepId, s.Workload, s.SliceIndex, s.AttemptId))
    {
        [S.StepId] = s.StepId,
        [S.Workload] = s.Workload,
        [S.SliceIndex] = (long)s.SliceIndex,
        [S.Attempt] = s.AttemptId,
        [S.TargetAccount] = (long)s.TargetIndex,
        [S.Host] = s.Host,
        [S.Worker] = s.Worker,
        [S.StartedUtc] = DateTime.SpecifyKind(s.StartedUtc, DateTimeKind.Utc),
        [S.EndedUtc] = DateTime.SpecifyKind(s.EndedUtc, DateTimeKind.Utc),
        [S.Operations] = s.Counts.Operations,
        [S.Succeeded] = s.Counts.Succeeded,
        [S.Failed] = s.Counts.Failed,
        [S.Throttled] = s.Counts.Throttled,
        [S.TimedOut] = s.Counts.TimedOut,
        [S.Units] = s.Units,
        [S.DurationSeconds] = (s.EndedUtc - s.StartedUtc).TotalSeconds,
        [S.StartLagSeconds] = s.StartLagSeconds,
        [S.Canceled] = s.Canceled,
        [S.LatencyHistogram] = Convert.FromBase64String(s.LatencyHistogram),
    };

    /// <summary>A slice row's figures: rate in entities/s for the table workload, MB/s for blobs.</summary>
    public static SliceSummary SliceSummaryOf(TableEntity r)
    {
        double perUnit = WorkloadKind.Find(r.GetString(S.Workload))?.CountedPerUnit ?? 1;
        double seconds = r.GetDouble(S.DurationSeconds) ?? 0;
        long units = r.GetInt64(S.Units) ?? 0;
        return new SliceSummary((int)(r.GetInt64(S.SliceIndex) ?? 0), (int)(r.GetInt64(S.TargetAccount) ?? 0), r.GetString(S.Host), r.GetInt64(S.Operations) ?? 0,
            r.GetInt64(S.Succeeded) ?? 0, r.GetInt64(S.Throttled) ?? 0, r.GetInt64(S.Failed) ?? 0, units, seconds,
            seconds > 0 ? units / seconds / perUnit : 0, r.GetDouble(S.StartLagSeconds) ?? 0,
            SummaryCalculator.Latency(LatencyHistograms.Decode(Convert.ToBase64String(r.GetBinary(S.LatencyHistogram)))))
        {
            Attempt = r.GetString(S.Attempt),
            Worker = r.GetString(S.Worker),
        };
    }

    public static string ProgressKey(string stepId, string workload, int slice) => $"progress-{stepId}-{workload}-{slice:D3}";

    /// <summary>The first RowKey of a step's progress rows; all of them sort below <see cref="ProgressKeyEnd"/>.</summary>
    public static string ProgressKeyStart(string stepId) => $"progress-{stepId}-";

    public static string ProgressKeyEnd(string stepId) => $"progress-{stepId}.";

    public static TableEntity ProgressRow(string runId, SliceProgress p) => new(runId, ProgressKey(p.StepId, p.Workload, p.Slice))
    {
        [P.StepId] = p.StepId,
        [P.Workload] = p.Workload,
        [P.Slice] = p.Slice,
        [P.Operations] = p.Counts.Operations,
        [P.Units] = p.Counts.Units,
        [P.Throttled] = p.Counts.Throttled,
        [P.Failed] = p.Counts.Failed,
        [P.UnitsPerSecond] = p.UnitsPerSecond,
        [P.PlannedUnits] = p.PlannedUnits,
        [P.DurationSeconds] = p.DurationSeconds,
        [P.StartAtUtc] = DateTime.SpecifyKind(p.StartAtUtc, DateTimeKind.Utc),
        [P.UpdatedUtc] = DateTime.SpecifyKind(p.UpdatedUtc, DateTimeKind.Utc),
        [P.Done] = p.Done,
        [P.Latency] = p.Latency,
        [P.Worker] = p.Worker,
        [P.Segment] = p.Segment,
    };

    public static SliceProgress ProgressOf(TableEntity r) =>
        new(r.GetString(P.StepId), r.GetString(P.Workload), r.GetInt32(P.Slice) ?? 0,
            new LiveCounts(r.GetInt64(P.Operations) ?? 0, r.GetInt64(P.Units) ?? 0, r.GetInt64(P.Throttled) ?? 0, r.GetInt64(P.Failed) ?? 0),
            r.GetDouble(P.UnitsPerSecond) ?? 0, r.GetInt64(P.PlannedUnits) ?? 0, r.GetDouble(P.DurationSeconds) ?? 0,
            r.GetDateTime(P.StartAtUtc) ?? default, r.GetDateTime(P.UpdatedUtc) ?? default, r.GetBoolean(P.Done) ?? false, r.GetString(P.Latency))
        {
            Worker = r.GetString(P.Worker),
            Segment = r.GetInt32(P.Segment),
        };
}
