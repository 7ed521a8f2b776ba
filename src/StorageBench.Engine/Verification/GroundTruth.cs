using Azure;
using Azure.Storage.Blobs.Models;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads;

namespace StorageBench.Engine.Verification;

/// <summary>Counts what really landed in the run's own table or container and compares it with what the run reported.</summary>
public static class GroundTruth
{
    /// <summary>Counts the entities in the run's table in every target account.</summary>
    public static async Task<VerificationResult> VerifyTableAsync(IReadOnlyList<StorageTarget> targets, string tableName, long reportedEntities, CancellationToken ct)
    {
        long actual = 0;
        foreach (var target in targets)
        {
            using var clients = target.CreateClients(new() { SdkRetries = true });
            var table = clients.Tables.GetTableClient(tableName);
            try
            {
                // Keys only: the payload is what we wrote, the count is what we need.
                await foreach (var page in table.QueryAsync<Azure.Data.Tables.TableEntity>(select: ["PartitionKey"], maxPerPage: 1000, cancellationToken: ct).AsPages())
                {
                    actual += page.Values.Count;
                }
            }
            catch (RequestFailedException ex) when (ex.Status == 404)
            {
                // No table: nothing landed.
            }
        }
        return new VerificationResult(actual == reportedEntities, reportedEntities, actual, "entities",
            $"entities in table {tableName}" + (targets.Count > 1 ? $" across {targets.Count} accounts" : ""));
    }

    public static Task<VerificationResult> VerifyTableAsync(StorageTarget target, string tableName, long reportedEntities, CancellationToken ct) =>
        VerifyTableAsync([target], tableName, reportedEntities, ct);

    /// <param name="contentMd5BySlice">When given, every blob is downloaded and its MD5 compared with its slice's content.</param>
    public static Task<VerificationResult> VerifyBlobsAsync(StorageTarget target, string containerName, long reportedBlobs, long blobSizeBytes,
        string?[]? contentMd5BySlice, CancellationToken ct) =>
        VerifyBlobsAsync([target], containerName, reportedBlobs, blobSizeBytes, contentMd5BySlice, ct);

    /// <summary>Lists the run's container in every target account: count, lengths, and (when asked) each blob's MD5.</summary>
    public static async Task<VerificationResult> VerifyBlobsAsync(IReadOnlyList<StorageTarget> targets, string containerName, long reportedBlobs, long blobSizeBytes,
        string?[]? contentMd5BySlice, CancellationToken ct)
    {
        long blobs = 0, bytes = 0, wrongLength = 0, wrongContent = 0;
        foreach (var target in targets)
        {
            using var clients = target.CreateClients(new() { SdkRetries = true });
            var container = clients.Blobs.GetBlobContainerClient(containerName);
            try
            {
                await foreach (var item in container.GetBlobsAsync(BlobTraits.None, BlobStates.None, prefix: null, ct))
                {
                    blobs++;
                    long length = item.Properties.ContentLength ?? 0;
                    bytes += length;
                    wrongLength += length != blobSizeBytes ? 1 : 0;
                    if (contentMd5BySlice is not null && !await ContentMatchesAsync(container.GetBlobClient(item.Name), contentMd5BySlice, ct).ConfigureAwait(false))
                    {
                        wrongContent++;
                    }
                }
            }
            catch (RequestFailedException ex) when (ex.Status == 404)
            {
                // No container: nothing landed there.
            }
        }
        long expected = reportedBlobs * blobSizeBytes;
        string content = contentMd5BySlice is null ? "content not checked" : $"{wrongContent} whose MD5 differs from what was sent";
        string where = targets.Count > 1 ? $" across {targets.Count} accounts" : "";
        return new VerificationResult(bytes == expected && blobs == reportedBlobs && wrongLength == 0 && wrongContent == 0, expected, bytes, "bytes",
            $"{blobs} committed blobs (reported {reportedBlobs}), {wrongLength} with a length other than {blobSizeBytes}, {content}, in container {containerName}{where}");
    }

    private static async Task<bool> ContentMatchesAsync(Azure.Storage.Blobs.BlobClient blob, string?[] md5BySlice, CancellationToken ct)
    {
        int slice = BlobUploadWorkload.SliceOf(blob.Name);
        if (slice >= md5BySlice.Length || md5BySlice[slice] is not { } expected)
        {
            return false;
        }
        using var stream = await blob.OpenReadAsync(cancellationToken: ct).ConfigureAwait(false);
        using var md5 = System.Security.Cryptography.MD5.Create();
        return Convert.ToBase64String(await md5.ComputeHashAsync(stream, ct).ConfigureAwait(false)) == expected;
    }
}
