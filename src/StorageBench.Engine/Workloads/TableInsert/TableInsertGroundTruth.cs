using Azure;
using Azure.Data.Tables;

namespace StorageBench.Engine.Workloads.TableInsert;

/// <summary>The table insert's ground truth: what landed in the step's table.</summary>
public static class TableInsertGroundTruth
{
    /// <summary>Counts the accepted attempts' entities in the step's table in every target account.</summary>
    public static async Task<VerificationResult> VerifyTableAsync(IReadOnlyList<StorageTarget> targets, string tableName, IReadOnlyCollection<string> acceptedAttempts,
        long reportedEntities, CancellationToken ct)
    {
        var accepted = acceptedAttempts.ToHashSet(StringComparer.Ordinal);
        long actual = 0, discarded = 0, foreign = 0, queries = 0, deletes = 0, deletedEntities = 0;
        foreach (var target in targets)
        {
            using var clients = target.CreateSideCallClients();
            var table = clients.Tables.GetTableClient(tableName);
            var stray = new List<TableEntity>();
            try
            {
                // Keys only: the payload is what we wrote, the count is what we need.
                await foreach (var page in table.QueryAsync<TableEntity>(select: ["PartitionKey", "RowKey"], maxPerPage: 1000, cancellationToken: ct).AsPages())
                {
                    foreach (var e in page.Values)
                    {
                        string attempt = TableInsertSlice.AttemptOf(e.RowKey);
                        if (accepted.Contains(attempt))
                        {
                            actual++;
                        }
                        else if (attempt.Length > 0)
                        {
                            // Another execution's rows, or a primer row its delete missed: not counted, deleted.
                            stray.Add(e);
                            discarded += attempt == Priming.Attempt ? 0 : 1;
                        }
                        else
                        {
                            foreign++;
                        }
                    }
                }
            }
            catch (RequestFailedException ex) when (ex.Status == 404)
            {
                // No table: nothing landed.
            }
            // Everything these clients sent so far was a query page.
            long queried = clients.TableWire.Sent;
            queries += queried;
            foreach (var batch in stray.GroupBy(e => e.PartitionKey).SelectMany(g => g.Chunk(100)))
            {
                await table.SubmitTransactionAsync(batch.Select(e => new TableTransactionAction(TableTransactionActionType.Delete, e, ETag.All)), ct).ConfigureAwait(false);
            }
            deletes += clients.TableWire.Sent - queried;
            deletedEntities += stray.Count;
        }
        return new VerificationResult(actual == reportedEntities && foreign == 0, reportedEntities, actual, "entities",
            $"entities in table {tableName}" + GroundTruth.Across(targets) + GroundTruth.Discarded(discarded, "entities") + GroundTruth.Foreign(foreign, "entities"))
        {
            Discarded = discarded,
            Requests = new VerificationRequests(queries, 0, deletes, deletedEntities),
        };
    }

    public static Task<VerificationResult> VerifyTableAsync(StorageTarget target, string tableName, IReadOnlyCollection<string> acceptedAttempts, long reportedEntities, CancellationToken ct) =>
        VerifyTableAsync([target], tableName, acceptedAttempts, reportedEntities, ct);
}
