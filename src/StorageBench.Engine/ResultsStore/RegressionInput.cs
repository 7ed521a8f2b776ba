using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads;

namespace StorageBench.Engine.ResultsStore;

/// <summary>The figures of a run that the nightly regression check compares with the scenario's earlier runs (results-table column names).</summary>
public sealed record RegressionInput(string Scenario, string RunId, DateTime StartedUtc, IReadOnlyDictionary<string, double> Metrics)
{
    /// <summary>Why the run cannot be judged (docs/comparing.md, "The rule"): a workload measured under 5 whole seconds with all slices active.</summary>
    public string? NotJudgedReason { get; init; }

    public static readonly IReadOnlyList<(string Column, bool HigherIsBetter)> Columns =
        [(WorkloadColumns.Table.EntitiesPerSecond, true), (WorkloadColumns.Table.LatencyP99Ms, false), (WorkloadColumns.Blob.MegabytesPerSecond, true), (WorkloadColumns.Blob.LatencyP99Ms, false)];

    public static RegressionInput From(string scenario, string runId, DateTime startedUtc, IEnumerable<WorkloadSummary> workloads)
    {
        var metrics = new Dictionary<string, double>();
        workloads = workloads.ToList();
        foreach (var w in workloads)
        {
            bool table = w.Workload == TableInsertWorkload.Name;
            var c = table ? WorkloadColumns.Table : WorkloadColumns.Blob;
            metrics[table ? c.EntitiesPerSecond : c.MegabytesPerSecond] = (table ? w.Throughput.EntitiesPerSecond : w.Throughput.MegabytesPerSecond) ?? 0;
            metrics[c.LatencyP99Ms] = w.LatencyMs.P99;
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
