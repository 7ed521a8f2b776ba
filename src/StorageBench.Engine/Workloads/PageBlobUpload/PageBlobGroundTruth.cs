using Azure;
using Azure.Storage.Blobs.Specialized;

namespace StorageBench.Engine.Workloads.PageBlobUpload;

/// <summary>
/// The page blob upload's ground truth, in every target account: the accepted attempts' blobs in the step's container,
/// each one's length, whether its every page was written (Get Page Ranges: a page blob has its full length from its
/// create on, so its length alone cannot tell a blob whose pages landed from one whose pages were lost), and with
/// verifyContent its MD5 against what its attempt sent (an unwritten page reads as zeros). As for block blobs, another
/// execution's blobs are deleted and reported as discarded, and a blob without an attempt id fails verification.
/// </summary>
public static class PageBlobGroundTruth
{
    public static async Task<VerificationResult> VerifyAsync(IReadOnlyList<StorageTarget> targets, string containerName, IReadOnlyCollection<string> acceptedAttempts,
        long reportedBlobs, long blobSizeBytes, IReadOnlyDictionary<string, string>? contentMd5ByAttempt, CancellationToken ct)
    {
        long blobs = 0, whole = 0, partial = 0, wholeBytes = 0, wrongLength = 0, wrongContent = 0, notFound = 0, reads = 0, rangeReads = 0;
        var listed = await BlobListing.EachAcceptedAsync(targets, containerName, acceptedAttempts, async (container, item, attempt, wire) =>
        {
            blobs++;
            long length = item.Properties.ContentLength ?? 0;
            var blob = container.GetPageBlobClient(item.Name);
            var (written, matches, rangeRequests, requests) = await BlobListing.ReadBackAsync(blob, wire, () => WrittenBytesAsync(blob, ct),
                w => w == blobSizeBytes && length == blobSizeBytes, contentMd5ByAttempt, attempt, ct).ConfigureAwait(false);
            (rangeReads, reads) = (rangeReads + rangeRequests, reads + requests);
            if (written is null || matches is null)
            {
                notFound++;
            }
            else if (length != blobSizeBytes)
            {
                wrongLength++;
            }
            else if (written != length)
            {
                partial++;
            }
            else if (matches == false)
            {
                wrongContent++;
            }
            else
            {
                whole++;
                wholeBytes += length;
            }
        }, ct).ConfigureAwait(false);
        var (discarded, foreign, sent, deletes) = (listed.Discarded, listed.Foreign, listed.Sent, listed.Deletes);
        long expected = reportedBlobs * blobSizeBytes;
        string content = GroundTruth.Content(contentMd5ByAttempt is not null, wrongContent);
        return new VerificationResult(whole == reportedBlobs && wrongLength == 0 && wrongContent == 0 && notFound == 0 && foreign == 0, expected, wholeBytes, "bytes",
            // A blob created whose pages did not all land is a failed blob the run reported as such: shown, not counted.
            $"{whole} page blobs wholly written (reported {reportedBlobs}) of {blobs}, {partial} created but not wholly written, {wrongLength} with a length other than {blobSizeBytes}, " +
            $"{content}, in container {containerName}{GroundTruth.Across(targets)}{GroundTruth.NotFoundOnRead(notFound)}" +
            GroundTruth.Discarded(discarded, "blobs") + GroundTruth.Foreign(foreign, "blobs"))
        {
            Discarded = discarded,
            // Every other request these clients sent was a List Blobs page.
            Requests = new VerificationRequests(sent - reads - deletes, reads, deletes, 0) { PageRangeReads = rangeReads },
        };
    }

    /// <summary>Bytes of the blob's pages that were written (Get Page Ranges); null when the blob was not found (404).</summary>
    private static async Task<long?> WrittenBytesAsync(PageBlobClient blob, CancellationToken ct)
    {
        try
        {
            long written = 0;
            await foreach (var range in blob.GetAllPageRangesAsync(cancellationToken: ct).ConfigureAwait(false))
            {
                written += range.IsClear ? 0 : range.Range.Length ?? 0;
            }
            return written;
        }
        catch (RequestFailedException ex) when (ex.Status == 404)
        {
            return null;
        }
    }
}
