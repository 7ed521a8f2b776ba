using Azure;
using Azure.Data.Tables;

namespace StorageBench.Engine.ResultsStore;

/// <summary>The signals table: what running runs say to each other — cancel requests and each slice's live progress.</summary>
public sealed partial class ResultsTableStore
{
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

    /// <summary>Replaces the slice's progress row. Quick and without retries: progress may skip a beat, a slice must not wait for it.</summary>
    public async Task SaveProgressAsync(string runId, SliceProgress p, CancellationToken ct)
    {
        await QuickSignalAsync(SliceRows.ProgressRow(runId, p), ct).ConfigureAwait(false);
    }

    /// <summary>
    /// Replaces a row of the signals table through the quick pipeline (the cancel poll's: it answers within seconds or not at
    /// all, and leaves the bookkeeping pipeline to the runs), creating the table the first time.
    /// </summary>
    private async Task QuickSignalAsync(TableEntity row, CancellationToken ct)
    {
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

    /// <summary>One slice's progress row; null before any execution of it reported.</summary>
    public async Task<SliceProgress?> SliceProgressAsync(string runId, string stepId, string workload, int slice, CancellationToken ct)
    {
        try
        {
            var found = await _poll.Value.Tables.GetTableClient(signalsTable).GetEntityIfExistsAsync<TableEntity>(runId, SliceRows.ProgressKey(stepId, workload, slice), cancellationToken: ct)
                .ConfigureAwait(false);
            return found.HasValue ? SliceRows.ProgressOf(found.Value!) : null;
        }
        catch (RequestFailedException ex) when (ex.Status == 404)
        {
            return null;   // no signals table yet
        }
    }

    /// <summary>The progress rows of one step of a run (empty before any slice reported).</summary>
    public async Task<IReadOnlyList<SliceProgress>> ProgressAsync(string runId, string stepId, CancellationToken ct)
    {
        string from = SliceRows.ProgressKeyStart(stepId), to = SliceRows.ProgressKeyEnd(stepId);
        var rows = new List<SliceProgress>();
        try
        {
            await foreach (var r in _poll.Value.Tables.GetTableClient(signalsTable).QueryAsync<TableEntity>(
                TableClient.CreateQueryFilter($"PartitionKey eq {runId} and RowKey ge {from} and RowKey lt {to}"), cancellationToken: ct).ConfigureAwait(false))
            {
                rows.Add(SliceRows.ProgressOf(r));
            }
        }
        catch (RequestFailedException ex) when (ex.Status == 404)
        {
            // No signals table yet: nothing has reported.
        }
        return rows;
    }
}
