
namespace StorageBench.Engine.Workloads.BlobUpload;

/// <summary>The blob upload's ground truth: what was committed in the step's container.</summary>
public static class BlobUploadGroundTruth
{
    /// <summary>
    /// Lists the step's container in every target account: count and lengths of the accepted attempts'
    /// committed blobs and, when <paramref name="contentMd5ByAttempt"/> is given, each blob's MD5
    /// against what its attempt sent.
    /// </summary>
    public static async Task<VerificationResult> VerifyBlobsAsync(IReadOnlyList<StorageTarget> targets, string containerName, IReadOnlyCollection<string> acceptedAttempts,
        long reportedBlobs, long blobSizeBytes, IReadOnlyDictionary<string, string>? contentMd5ByAttempt, CancellationToken ct)
    {
        long blobs = 0, bytes = 0, wrongLength = 0, wrongContent = 0, notFound = 0, reads = 0;
        var listed = await BlobListing.EachAcceptedAsync(targets, containerName, acceptedAttempts, async (container, item, attempt, wire) =>
        {
            blobs++;
            long length = item.Properties.ContentLength ?? 0;
            bytes += length;
            wrongLength += length != blobSizeBytes ? 1 : 0;
            long beforeRead = wire.Sent;
            if (contentMd5ByAttempt is not null)
            {
                // Listed, then read: a 404 here is a blob the listing showed and storage could not serve, counted as such
                // (it used to end the whole listing as if the container were missing).
                bool? matches = await BlobListing.ContentMatchesAsync(container.GetBlobClient(item.Name), contentMd5ByAttempt.GetValueOrDefault(attempt), ct).ConfigureAwait(false);
                notFound += matches is null ? 1 : 0;
                wrongContent += matches == false ? 1 : 0;
            }
            reads += wire.Sent - beforeRead;
        }, ct).ConfigureAwait(false);
        var (discarded, foreign, sent, deletes) = (listed.Discarded, listed.Foreign, listed.Sent, listed.Deletes);
        long expected = reportedBlobs * blobSizeBytes;
        string content = GroundTruth.Content(contentMd5ByAttempt is not null, wrongContent);
        string missing = notFound > 0 ? $"; {notFound} of {blobs} blobs not found when read back (listed, then 404 on the read)" : "";
        return new VerificationResult(bytes == expected && blobs == reportedBlobs && wrongLength == 0 && wrongContent == 0 && notFound == 0 && foreign == 0, expected, bytes, "bytes",
            $"{blobs} committed blobs (reported {reportedBlobs}), {wrongLength} with a length other than {blobSizeBytes}, {content}, in container {containerName}"
            + GroundTruth.Across(targets) + missing + GroundTruth.Discarded(discarded, "blobs") + GroundTruth.Foreign(foreign, "blobs"))
        {
            Discarded = discarded,
            // Every other request these clients sent was a List Blobs page.
            Requests = new VerificationRequests(sent - reads - deletes, reads, deletes, 0),
        };
    }
}
