using Azure;
using Azure.Data.Tables;

namespace StorageBench.Engine.ResultsStore;

/// <summary>
/// The workers' roster, in the signals table: one row per worker process on a task hub (PartitionKey "workers-" + hub),
/// refreshed by its heartbeat, so a step can count the workers that are up when it plans its slices.
/// </summary>
public sealed partial class ResultsTableStore
{
    private const string WorkerPrefix = "workers-", ActivityLimitColumn = "ActivityLimit", PartitionsColumn = "HubPartitions", SeenColumn = "SeenUtc", NameColumn = "Worker";

    /// <summary>Writes (or refreshes) a worker's row: its name, its activity limit, its hub's partition count, and when it was last seen.</summary>
    public async Task SaveWorkerAsync(string hub, string worker, int? activityLimit, int? hubPartitions, DateTime seenUtc, CancellationToken ct)
    {
        var row = new TableEntity(WorkerPrefix + hub, WorkerKey(worker))
        {
            [NameColumn] = worker, [ActivityLimitColumn] = activityLimit, [PartitionsColumn] = hubPartitions, [SeenColumn] = DateTime.SpecifyKind(seenUtc, DateTimeKind.Utc),
        };
        // A heartbeat goes through the quick pipeline: it answers within seconds or not at all.
        await QuickSignalAsync(row, ct).ConfigureAwait(false);
    }

    /// <summary>The workers seen on the hub at or after <paramref name="sinceUtc"/>, by name.</summary>
    public async Task<IReadOnlyList<(string Worker, int? ActivityLimit, int? HubPartitions)>> WorkersAsync(string hub, DateTime sinceUtc, CancellationToken ct)
    {
        var seen = new List<(string, int?, int?)>();
        try
        {
            string partition = WorkerPrefix + hub;
            var since = DateTime.SpecifyKind(sinceUtc, DateTimeKind.Utc);
            await foreach (var r in _poll.Value.Tables.GetTableClient(signalsTable).QueryAsync<TableEntity>(
                TableClient.CreateQueryFilter($"PartitionKey eq {partition} and SeenUtc ge {since}"), cancellationToken: ct).ConfigureAwait(false))
            {
                seen.Add((r.GetString(NameColumn), r.GetInt32(ActivityLimitColumn), r.GetInt32(PartitionsColumn)));
            }
        }
        catch (RequestFailedException ex) when (ex.Status == 404)
        {
            // No signals table yet: no worker has registered.
        }
        return [.. seen.OrderBy(s => s.Item1, StringComparer.Ordinal)];
    }

    /// <summary>Takes a stopping worker off the roster (a killed one drops off when its heartbeat is stale).</summary>
    public async Task RemoveWorkerAsync(string hub, string worker, CancellationToken ct)
    {
        try
        {
            await _poll.Value.Tables.GetTableClient(signalsTable).DeleteEntityAsync(WorkerPrefix + hub, WorkerKey(worker), ETag.All, ct).ConfigureAwait(false);
        }
        catch (RequestFailedException ex) when (ex.Status == 404)
        {
        }
    }

    /// <summary>A RowKey may not hold '/', '\', '#' or '?': a worker's "machine/pid" is kept in a column, its key escaped.</summary>
    private static string WorkerKey(string worker) => Uri.EscapeDataString(worker).Replace('%', '~');
}
