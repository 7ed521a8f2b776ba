using Azure;
using Azure.Storage.Blobs.Specialized;

namespace StorageBench.Engine.Workloads.AppendBlobUpload;

/// <summary>
/// The append blob upload's ground truth, in every target account (<see cref="BlobListing"/>): each accepted blob's length,
/// its committed block count (x-ms-blob-committed-block-count: an append landed twice or lost shows there even when the
/// lengths add up), and with verifyContent its MD5 against what its attempt sent.
/// </summary>
internal static class AppendBlobGroundTruth
{
    public static async Task<VerificationResult> VerifyAsync(IReadOnlyList<StorageTarget> targets, VerifyBlobsInput order, CancellationToken ct)
    {
        long blobs = 0, whole = 0, wholeBytes = 0, wrongLength = 0, wrongBlocks = 0, wrongContent = 0, notFound = 0, reads = 0, propertyReads = 0;
        var listed = await BlobListing.EachAcceptedAsync(targets, order.ContainerName, order.AcceptedAttempts, async (container, item, attempt, wire) =>
        {
            blobs++;
            long length = item.Properties.ContentLength ?? 0;
            var blob = container.GetAppendBlobClient(item.Name);
            var (blocks, matches, propertyRequests, requests) = await BlobListing.ReadBackAsync(blob, wire, () => CommittedBlocksAsync(blob, ct),
                _ => length == order.BlobSizeBytes, order.ContentMd5ByAttempt, attempt, ct).ConfigureAwait(false);
            (propertyReads, reads) = (propertyReads + propertyRequests, reads + requests);
            (notFound, wrongLength, wrongBlocks, wrongContent, whole) = (blocks, matches) switch
            {
                (null, _) or (_, null) => (notFound + 1, wrongLength, wrongBlocks, wrongContent, whole),
                _ when length != order.BlobSizeBytes => (notFound, wrongLength + 1, wrongBlocks, wrongContent, whole),
                _ when blocks != order.Parts => (notFound, wrongLength, wrongBlocks + 1, wrongContent, whole),
                (_, false) => (notFound, wrongLength, wrongBlocks, wrongContent + 1, whole),
                _ => (notFound, wrongLength, wrongBlocks, wrongContent, whole + 1),
            };
            wholeBytes += blocks == order.Parts && length == order.BlobSizeBytes && matches == true ? length : 0;
        }, ct).ConfigureAwait(false);
        string content = GroundTruth.Content(order.ContentMd5ByAttempt is not null, wrongContent);
        return new VerificationResult(whole == order.ReportedBlobs && wrongLength + wrongBlocks + wrongContent + notFound + listed.Foreign == 0,
            order.ReportedBlobs * order.BlobSizeBytes, wholeBytes, "bytes",
            $"{whole} append blobs wholly appended (reported {order.ReportedBlobs}) of {blobs}, {wrongLength} with a length other than {order.BlobSizeBytes}, " +
            $"{wrongBlocks} with a committed block count other than {order.Parts}, {content}, in container {order.ContainerName}{GroundTruth.Across(targets)}" +
            GroundTruth.NotFoundOnRead(notFound) + GroundTruth.Discarded(listed.Discarded, "blobs") + GroundTruth.Foreign(listed.Foreign, "blobs"))
        {
            Discarded = listed.Discarded,
            // Every other request these clients sent was a List Blobs page.
            Requests = new VerificationRequests(listed.Sent - reads - listed.Deletes, reads, listed.Deletes, 0) { PageRangeReads = propertyReads },
        };
    }

    /// <summary>The blob's committed block count (Get Blob Properties); null when it was not found (404).</summary>
    private static async Task<int?> CommittedBlocksAsync(AppendBlobClient blob, CancellationToken ct)
    {
        try
        {
            return (await blob.GetPropertiesAsync(cancellationToken: ct).ConfigureAwait(false)).Value.BlobCommittedBlockCount;
        }
        catch (RequestFailedException ex) when (ex.Status == 404)
        {
            return null;
        }
    }
}
