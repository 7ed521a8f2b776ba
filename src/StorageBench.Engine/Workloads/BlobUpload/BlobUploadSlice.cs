using System.Text;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Specialized;

namespace StorageBench.Engine.Workloads.BlobUpload;

/// <summary>
/// Uploads one slice's blobs one after another; within a blob, ParallelBlocks Put Block requests are
/// in flight, then Put Block List commits them (as the seeds' storage client did). A Put Block or Put
/// Block List that is throttled or fails transiently is sent again up to BlockRetries times after a
/// jittered back-off that honours the service's retry-after headers (<see cref="BlockRetryDelays"/>), as
/// storage clients do; every attempt is counted (a throttled one as throttled) and only successful ones are timed. A blob whose block or commit still fails is a failed
/// blob: it is not committed, and the bytes it staged are reported as sent for failed blobs.
/// A fixed-duration slice starts no new blob once its time is up, so every blob it commits is whole.
/// Blob names start with this execution's attempt id (activities run at least once). Canceling
/// <c>ct</c> stops the slice: no new block is sent, a blob left incomplete is not committed (it counts
/// as failed), and requests in flight are counted.
/// </summary>
public static class BlobUploadSlice
{
    /// <param name="live">Shown the block and commit recorders once they exist, for progress; null when nobody watches.</param>
    /// <param name="retryDelays">Chooses (and keeps) the waits before retries; a new one per slice when not given.</param>
    public static Task<SliceResult> RunAsync(BlobSlicePlan<BlobUploadSpec> plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live = null,
        ILogger? logger = null, BlockRetryDelays? retryDelays = null) =>
        BlobWriteSlice.RunAsync(BlobUploadRoom.Instance, plan, target, time, ct, live, logger, plan.Workload.BlockRetries, retryDelays, (clients, container, requests) =>
        {
            var spec = plan.Workload;
            int blockCount = BlockCount(spec.BlobSizeBytes, spec.BlockSizeBytes);
            int lanes = Math.Min(spec.ParallelBlocks, blockCount);
            var blockIds = BlockIds(blockCount);
            var lean = plan.Client.LeanOrNull(() => new LeanBlockUploads(clients.Lean, clients.BlobWire, plan.ContainerName, blockIds, lanes));
            return new BlockWrites(plan, container, lean, blockIds, lanes, requests);
        });

    /// <summary>A block blob: Put Block ×N in parallel lanes, then Put Block List. Its primer commits its one block through the SDK before the delete.</summary>
    private sealed class BlockWrites(BlobSlicePlan<BlobUploadSpec> plan, BlobContainerClient container, LeanBlockUploads? lean, string[] blockIds, int lanes,
        RetriedBlobRequests requests)
        : BlobWrites<BlobUploadSpec, (BlockBlobClient Sdk, LeanBlob? Lean)>(plan, plan.Workload.BlockSizeBytes, 1, lanes, requests, lean)
    {
        protected override (BlockBlobClient Sdk, LeanBlob? Lean) BlobOf(string name) => (container.GetBlockBlobClient(name), lean?.Blob(name));

        protected override BlobBaseClient SdkOf((BlockBlobClient Sdk, LeanBlob? Lean) blob) => blob.Sdk;

        protected override Task PartAsync(int loop, int lane, (BlockBlobClient Sdk, LeanBlob? Lean) blob, long part, long offset, int size) => lean is null
            ? StageBlockAsync(blob.Sdk, blockIds[part], Buffer, size)
            : lean.StageBlockAsync(lane, blob.Lean!, (int)part, Buffer, size);

        protected override Func<Task> Last(int loop, (BlockBlobClient Sdk, LeanBlob? Lean) blob) => lean is null
            ? () => blob.Sdk.CommitBlockListAsync(new ArraySegment<string>(blockIds, 0, blockIds.Length))
            : () => lean.CommitBlockListAsync(blob.Lean!);

        protected override Func<Task> PrimeLast((BlockBlobClient Sdk, LeanBlob? Lean) blob) => () => blob.Sdk.CommitBlockListAsync([blockIds[0]]);
    }

    public static int BlockCount(long blobSizeBytes, int blockSizeBytes) => (int)((blobSizeBytes + blockSizeBytes - 1) / blockSizeBytes);

    /// <summary>Block ids must be base64 of equal length within a blob; the same list serves every blob.</summary>
    private static string[] BlockIds(int count) =>
        [.. Enumerable.Range(0, count).Select(i => Convert.ToBase64String(Encoding.ASCII.GetBytes($"block-{i:D6}")))];

    private static async Task StageBlockAsync(BlockBlobClient blob, string blockId, byte[] block, int size)
    {
        using var content = new MemoryStream(block, 0, size, writable: false);
        // Not canceled with the slice: a request in flight finishes (or times out) and is counted.
        await blob.StageBlockAsync(blockId, content).ConfigureAwait(false);
    }
}
