using Azure.Data.Tables;
using StorageBench.Engine.Comparison;

namespace StorageBench.Engine.ResultsStore;

/// <summary>Reading stored runs back: lists, a run's figures for compare, and its setup for the planner.</summary>
public sealed partial class ResultsTableStore
{
    /// <summary>Newest first, for one scenario.</summary>
    public Task<IReadOnlyList<TableEntity>> ListRunsAsync(string scenario, int max, CancellationToken ct) =>
        QueryRunsAsync(new RunFilter(scenario), max, ct);

    /// <summary>The newest <paramref name="max"/> run rows matching the filter, newest first (a sweep's step rows after its own row).</summary>
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
            // Within one scenario (one partition) the service returns the newest first; across scenarios it returns them
            // partition by partition, so every matching row is read and the newest are chosen below.
            if (filter.Scenario is not null && list.Count >= max)
            {
                break;
            }
        }
        return [.. RunRows.Newest(list, max)];
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
        var own = rows.FirstOrDefault(r => !r.ContainsKey(ResultsColumns.StepValue)) ?? rows[0];
        var workloads = rows.OrderBy(r => r.RowKey, StringComparer.Ordinal).SelectMany(RunRows.AllFiguresOf);
        return new RunFigures(runId, $"results table {runsTable}", own.PartitionKey, own.GetString(ResultsColumns.Status) ?? "",
            own.GetDateTimeOffset(ResultsColumns.StartedUtc)?.UtcDateTime ?? default, [.. workloads]) { Environment = RunRows.EnvironmentOf(own), Spec = RunRows.SpecOf(own) };
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
            if (RunRows.SetupOf(row) is { } setup)
            {
                return setup;
            }
        }
        return null;
    }
}
