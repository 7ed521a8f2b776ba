using Azure;
using Azure.Data.Tables;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Models;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads;

namespace StorageBench.Engine.Verification;

/// <summary>
/// Counts what really landed in a step's own table or container and compares it with what the run
/// reported. Activities run at least once, so a slice may have run twice: only the executions whose
/// results the orchestrator accepted (their attempt ids) are counted; anything another execution
/// wrote is deleted and reported as discarded. Anything that does not carry an attempt id at all was
/// not written by this tool, and fails verification.
/// </summary>
public static class GroundTruth
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
                        string attempt = TableInsertWorkload.AttemptOf(e.RowKey);
                        if (accepted.Contains(attempt))
                        {
                            actual++;
                        }
                        else if (attempt.Length > 0)
                        {
                            // Another execution's rows, or a primer row its delete missed: not counted, deleted.
                            stray.Add(e);
                            discarded += attempt == TableInsertWorkload.PrimerAttempt ? 0 : 1;
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
            $"entities in table {tableName}" + Across(targets) + Discarded(discarded, "entities") + Foreign(foreign, "entities"))
        {
            Discarded = discarded,
            Requests = new VerificationRequests(queries, 0, deletes, deletedEntities),
        };
    }

    public static Task<VerificationResult> VerifyTableAsync(StorageTarget target, string tableName, IReadOnlyCollection<string> acceptedAttempts, long reportedEntities, CancellationToken ct) =>
        VerifyTableAsync([target], tableName, acceptedAttempts, reportedEntities, ct);

    /// <summary>
    /// Lists the step's container in every target account: count and lengths of the accepted attempts'
    /// committed blobs and, when <paramref name="contentMd5ByAttempt"/> is given, each blob's MD5
    /// against what its attempt sent.
    /// </summary>
    public static async Task<VerificationResult> VerifyBlobsAsync(IReadOnlyList<StorageTarget> targets, string containerName, IReadOnlyCollection<string> acceptedAttempts,
        long reportedBlobs, long blobSizeBytes, IReadOnlyDictionary<string, string>? contentMd5ByAttempt, CancellationToken ct)
    {
        var accepted = acceptedAttempts.ToHashSet(StringComparer.Ordinal);
        long blobs = 0, bytes = 0, wrongLength = 0, wrongContent = 0, notFound = 0, discarded = 0, foreign = 0, sent = 0, reads = 0, deletes = 0;
        foreach (var target in targets)
        {
            using var clients = target.CreateSideCallClients();
            var wire = clients.BlobWire;
            var container = clients.Blobs.GetBlobContainerClient(containerName);
            try
            {
                await foreach (var item in container.GetBlobsAsync(BlobTraits.None, BlobStates.None, prefix: null, ct))
                {
                    string attempt = BlobUploadWorkload.AttemptOf(item.Name);
                    if (attempt.Length == 0)
                    {
                        foreign++;
                        continue;
                    }
                    if (!accepted.Contains(attempt))
                    {
                        discarded += attempt == TableInsertWorkload.PrimerAttempt ? 0 : 1;
                        long before = wire.Sent;
                        await container.DeleteBlobIfExistsAsync(item.Name, cancellationToken: ct).ConfigureAwait(false);
                        deletes += wire.Sent - before;
                        continue;
                    }
                    blobs++;
                    long length = item.Properties.ContentLength ?? 0;
                    bytes += length;
                    wrongLength += length != blobSizeBytes ? 1 : 0;
                    long beforeRead = wire.Sent;
                    if (contentMd5ByAttempt is not null)
                    {
                        // Listed, then read: a 404 here is a blob the listing showed and storage could not serve, counted as such
                        // (it used to end the whole listing as if the container were missing).
                        bool? matches = await ContentMatchesAsync(container.GetBlobClient(item.Name), contentMd5ByAttempt.GetValueOrDefault(attempt), ct).ConfigureAwait(false);
                        notFound += matches is null ? 1 : 0;
                        wrongContent += matches == false ? 1 : 0;
                    }
                    reads += wire.Sent - beforeRead;
                }
            }
            catch (RequestFailedException ex) when (ex.Status == 404)
            {
                // No container: nothing landed there.
            }
            sent += wire.Sent;
        }
        long expected = reportedBlobs * blobSizeBytes;
        string content = contentMd5ByAttempt is null ? "content not checked" : $"{wrongContent} whose MD5 differs from what was sent";
        string missing = notFound > 0 ? $"; {notFound} of {blobs} blobs not found when read back (listed, then 404 on the read)" : "";
        return new VerificationResult(bytes == expected && blobs == reportedBlobs && wrongLength == 0 && wrongContent == 0 && notFound == 0 && foreign == 0, expected, bytes, "bytes",
            $"{blobs} committed blobs (reported {reportedBlobs}), {wrongLength} with a length other than {blobSizeBytes}, {content}, in container {containerName}"
            + Across(targets) + missing + Discarded(discarded, "blobs") + Foreign(foreign, "blobs"))
        {
            Discarded = discarded,
            // Every other request these clients sent was a List Blobs page.
            Requests = new VerificationRequests(sent - reads - deletes, reads, deletes, 0),
        };
    }

    private static string Across(IReadOnlyList<StorageTarget> targets) => targets.Count > 1 ? $" across {targets.Count} accounts" : "";

    private static string Discarded(long count, string what) =>
        count > 0 ? $"; {count} {what} written by an execution whose result was not used were deleted" : "";

    private static string Foreign(long count, string what) => count > 0 ? $"; {count} {what} this tool did not write" : "";

    /// <summary>Whether the blob's MD5 is what was sent; null when the blob could not be found when read (404).</summary>
    private static async Task<bool?> ContentMatchesAsync(BlobClient blob, string? expectedMd5, CancellationToken ct)
    {
        if (expectedMd5 is null)
        {
            return false;
        }
        try
        {
            using var stream = await blob.OpenReadAsync(cancellationToken: ct).ConfigureAwait(false);
#pragma warning disable CA5351 // Content-MD5 is the storage service's integrity header, compared as stored: not a security use.
            using var md5 = System.Security.Cryptography.MD5.Create();
#pragma warning restore CA5351
            return Convert.ToBase64String(await md5.ComputeHashAsync(stream, ct).ConfigureAwait(false)) == expectedMd5;
        }
        catch (RequestFailedException ex) when (ex.Status == 404)
        {
            return null;
        }
    }
}
