using StorageBench.Engine.Comparison;

namespace StorageBench.Engine.ResultsStore;

/// <summary>A scenario's earlier runs as the yardstick for a new one: the regression baseline and the run-to-run spread.</summary>
public sealed partial class ResultsTableStore
{
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
            .Where(r => r.GetString(ResultsColumns.Status) == RunStatus.Completed && !exclude.Contains(r.GetString(ResultsColumns.RunId))
                && (specJson is null || r.GetString(ResultsColumns.Spec) is not { } recorded || recorded == specJson));
        return rows.SelectMany(RunRows.AllFiguresOf)
            .GroupBy(w => RunToRunSpread.Key(w.Workload, w.StepParameter, w.StepValue))
            .Select(g => (g.Key, Spread: RunToRunSpread.Of([.. g.Take(maxRuns)])))
            .Where(x => x.Spread is not null)
            .ToDictionary(x => x.Key, x => x.Spread!);
    }

    /// <summary>
    /// The trailing baseline for a run: metric histories from the scenario's earlier completed,
    /// non-sweep runs (newest first), for each headline metric the current run has.
    /// </summary>
    public async Task<IReadOnlyList<MetricHistory>> BaselineAsync(RegressionInput current, int maxRuns, CancellationToken ct)
    {
        var rows = (await QueryRunsAsync(new RunFilter(current.Scenario, UntilUtc: current.StartedUtc), maxRuns * 4 + 10, ct).ConfigureAwait(false))
            .Where(r => r.GetString(ResultsColumns.Status) == RunStatus.Completed && !r.ContainsKey(ResultsColumns.StepParameter) && r.GetString(ResultsColumns.RunId) != current.RunId)
            .Take(maxRuns)
            .ToList();
        var metrics = new List<MetricHistory>();
        foreach (var (column, higherIsBetter) in RegressionInput.Columns)
        {
            if (current.Metrics.TryGetValue(column, out double value))
            {
                metrics.Add(new MetricHistory(column, higherIsBetter, value, [.. rows.Select(r => r.GetDouble(column)).OfType<double>()])
                {
                    NotJudgedReason = current.NotJudgedMetrics?.GetValueOrDefault(column),
                });
            }
        }
        return metrics;
    }
}
