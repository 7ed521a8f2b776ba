using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Specialized;

namespace StorageBench.Engine.Workloads.PageBlobUpload;

/// <summary>
/// Uploads one slice's page blobs one after another: each is created at its full size (Put Blob, x-ms-blob-type PageBlob),
/// then written by Put Page in ranges of at most PageRangeBytes, ParallelRanges of them in flight. Like the block upload, a throttled or transiently failed request is sent again after the back-off of
/// <see cref="BlockRetryDelays"/>, every attempt counted and only successful Put Pages timed; the create is counted, not
/// timed. A blob is done when its every page landed: its bytes are goodput. A blob whose create or a page still fails
/// is a failed blob (it exists, but holds zeros where its pages are missing); the bytes its Put Pages wrote are reported
/// as sent for failed blobs. A fixed-duration slice starts no new blob once its time is up. Blob names start with this
/// execution's attempt id (<see cref="BlobNames.Of"/>). Canceling <c>ct</c> stops the slice: no new page is
/// sent, an unfinished blob counts as failed, and requests in flight are counted.
/// </summary>
public static class PageBlobUploadSlice
{
    /// <param name="live">Shown the page and create recorders once they exist, for progress; null when nobody watches.</param>
    /// <param name="retryDelays">Chooses (and keeps) the waits before retries; a new one per slice when not given.</param>
    public static Task<SliceResult> RunAsync(BlobSlicePlan<PageBlobUploadSpec> plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live = null,
        ILogger? logger = null, BlockRetryDelays? retryDelays = null) =>
        BlobWriteSlice.RunAsync(PageBlobUploadRoom.Instance, plan, target, time, ct, live, logger, plan.Workload.Retries, retryDelays, (clients, container, requests) =>
        {
            var spec = plan.Workload;
            int lanes = (int)Math.Min(spec.ParallelRanges, RangeCount(spec.BlobSizeBytes, spec.PageRangeBytes));
            var lean = plan.Client.LeanOrNull(() => new LeanPageUploads(clients.Lean, clients.BlobWire, plan.ContainerName, spec.BlobSizeBytes, lanes));
            return new PageWrites(plan, container, lean, lanes, requests);
        });

    /// <summary>
    /// A page blob: created at its full size, then Put Page of its ranges in parallel lanes. A primer's blob is as large as the
    /// measured ones (its create is the same request); only its first pages are written.
    /// </summary>
    private sealed class PageWrites(BlobSlicePlan<PageBlobUploadSpec> plan, BlobContainerClient container, LeanPageUploads? lean, int lanes, RetriedBlobRequests requests)
        : BlobWrites<PageBlobUploadSpec, (PageBlobClient Sdk, LeanBlob? Lean)>(plan, plan.Workload.PageRangeBytes, 1, lanes, requests, lean)
    {
        protected override (PageBlobClient Sdk, LeanBlob? Lean) BlobOf(string name) => (container.GetPageBlobClient(name), lean?.Blob(name));

        protected override BlobBaseClient SdkOf((PageBlobClient Sdk, LeanBlob? Lean) blob) => blob.Sdk;

        protected override Func<Task> First(int loop, (PageBlobClient Sdk, LeanBlob? Lean) blob) => lean is null
            ? () => blob.Sdk.CreateAsync(Spec.BlobSizeBytes)
            : () => lean.CreateAsync(loop, blob.Lean!);

        protected override Task PartAsync(int loop, int lane, (PageBlobClient Sdk, LeanBlob? Lean) blob, long part, long offset, int size) => lean is null
            ? UploadPagesAsync(blob.Sdk, Buffer, offset, size)
            : lean.UploadPagesAsync(lane, blob.Lean!, offset, Buffer, size);
    }

    /// <summary>Put Pages per blob: ranges of <paramref name="pageRangeBytes"/>, the last one shorter when the size is not a multiple.</summary>
    public static long RangeCount(long blobSizeBytes, int pageRangeBytes) => BlobWriteSlice.PartsOf(blobSizeBytes, pageRangeBytes);

    private static async Task UploadPagesAsync(PageBlobClient blob, byte[] page, long offset, int size)
    {
        using var content = new MemoryStream(page, 0, size, writable: false);
        // Not canceled with the slice: a request in flight finishes (or times out) and is counted.
        await blob.UploadPagesAsync(content, offset).ConfigureAwait(false);
    }
}
