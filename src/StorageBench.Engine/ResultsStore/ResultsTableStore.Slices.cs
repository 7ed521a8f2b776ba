using Azure;
using Azure.Data.Tables;

namespace StorageBench.Engine.ResultsStore;

/// <summary>The slices table: one row per slice execution, written by the slice itself, and the accepted executions' figures.</summary>
public sealed partial class ResultsTableStore
{
    /// <summary>One slice execution's row, written by the slice itself (RowKey step-workload-slice-attempt).</summary>
    public async Task SaveSliceAsync(string runId, SliceResult s, CancellationToken ct)
    {
        var slices = await TableAsync(slicesTable, ct).ConfigureAwait(false);
        await slices.UpsertEntityAsync(SliceRows.SliceRow(runId, s), TableUpdateMode.Replace, ct).ConfigureAwait(false);
    }

    public static string SliceRowKey(string stepId, string workload, int slice, string attempt) => SliceRows.SliceRowKey(stepId, workload, slice, attempt);

    /// <summary>Deletes the rows of slice executions whose results were not used (a repeated activity); returns how many.</summary>
    public async Task<int> DiscardSliceRowsAsync(string runId, string stepId, string workload, IReadOnlyCollection<string> acceptedAttempts, CancellationToken ct)
    {
        var slices = await TableAsync(slicesTable, ct).ConfigureAwait(false);
        string prefix = $"{stepId}-{workload}-";
        var stray = new List<TableEntity>();
        await foreach (var row in slices.QueryAsync<TableEntity>(
            TableClient.CreateQueryFilter($"PartitionKey eq {runId} and RowKey ge {prefix} and RowKey lt {prefix + "~"}"), select: ["PartitionKey", "RowKey", ResultsColumns.Slice.Attempt], cancellationToken: ct))
        {
            if (!acceptedAttempts.Contains(row.GetString(ResultsColumns.Slice.Attempt)))
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
        return rows.GroupBy(r => (r.GetString(ResultsColumns.Slice.StepId), r.GetString(ResultsColumns.Slice.Workload)))
            .ToDictionary(g => g.Key, g => (IReadOnlyList<SliceSummary>)[.. g.OrderBy(r => r.GetInt64(ResultsColumns.Slice.SliceIndex)).Select(SliceRows.SliceSummaryOf)]);
    }
}
