
namespace StorageBench.Engine.ResultsStore;

/// <summary>The figures of a run that the nightly regression check compares with the scenario's earlier runs (results-table column names).</summary>
public sealed record RegressionInput(string Scenario, string RunId, DateTime StartedUtc, IReadOnlyDictionary<string, double> Metrics)
{
    /// <summary>Why the run cannot be judged (docs/comparing.md, "The rule"): a workload measured under 5 whole seconds with all slices active.</summary>
    public string? NotJudgedReason { get; init; }

    /// <summary>Metrics (column names) the run's samples cannot support, with why (a p99 from fewer than 1,000 requests: <see cref="Comparison.ChangeRule"/>).</summary>
    public IReadOnlyDictionary<string, string>? NotJudgedMetrics { get; init; }

    public static readonly IReadOnlyList<(string Column, bool HigherIsBetter)> Columns =
        [.. WorkloadKind.All.SelectMany(k => new[] { (WorkloadColumns.Of(k).RateColumn(), true), (WorkloadColumns.Of(k).LatencyP99Ms, false) })];

    public static RegressionInput From(string scenario, string runId, DateTime startedUtc, IEnumerable<WorkloadSummary> workloads)
    {
        var metrics = new Dictionary<string, double>();
        var unsupported = new Dictionary<string, string>();
        var list = workloads.ToList();
        foreach (var w in list)
        {
            var kind = WorkloadKind.Of(w.Workload);
            var c = WorkloadColumns.Of(kind);
            metrics[c.RateColumn()] = kind.RateOf(w.Throughput) ?? 0;
            if (w.LatencyMs.P99 is { } p99)
            {
                metrics[c.LatencyP99Ms] = p99;   // a run with no sample has no p99 to judge
            }
            if (Comparison.ChangeRule.PercentileReason("the run", 0.99, w.LatencyMs.Samples, w.DurationSeconds) is { } why)
            {
                unsupported[c.LatencyP99Ms] = why;
            }
        }
        var rule = Comparison.NoiseRule.Default;
        var tooShort = list.FirstOrDefault(w => rule.Usable(w.PerSecondSpread) is null);
        return new RegressionInput(scenario, runId, startedUtc, metrics)
        {
            NotJudgedReason = tooShort is null ? null : Comparison.ChangeRule.WindowReason(tooShort.Workload, tooShort.PerSecondSpread?.Samples),
            NotJudgedMetrics = unsupported.Count == 0 ? null : unsupported,
        };
    }
}
