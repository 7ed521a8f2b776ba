using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Specialized;

namespace StorageBench.Engine.Workloads.AppendBlobUpload;

/// <summary>
/// One appendBlobUpload slice on the engine's blob writer (<see cref="BlobWrites{TSpec, TBlob}"/>): parallelBlobs loops, each
/// creating its next blob and appending to it one Append Block at a time (an append blob grows in order). An append is
/// never sent again: one whose answer was lost may have landed, and a second would append its bytes twice, so a failed
/// append fails its blob (throttling is counted as such).
/// </summary>
internal static class AppendBlobUploadSlice
{
    public static Task<SliceResult> RunAsync(BlobSlicePlan<AppendBlobUploadSpec> plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger) =>
        BlobWriteSlice.RunAsync(AppendBlobUploadRoom.Instance, plan, target, time, ct, live, logger, retries: 0, null, (clients, container, requests) =>
        {
            var spec = plan.Workload;
            int loops = spec.DurationSeconds > 0 ? spec.ParallelBlobs : Math.Min(spec.ParallelBlobs, plan.BlobCount);
            var lean = plan.Client.LeanOrNull(() => new LeanAppendBlocks(clients.Lean, clients.BlobWire, plan.ContainerName, loops));
            return new Appends(plan, container, lean, loops, requests);
        });

    private sealed class Appends(BlobSlicePlan<AppendBlobUploadSpec> plan, BlobContainerClient container, LeanAppendBlocks? lean, int loops, RetriedBlobRequests requests)
        : BlobWrites<AppendBlobUploadSpec, (AppendBlobClient Sdk, LeanBlob? Lean)>(plan, plan.Workload.AppendSizeBytes, loops, 1, requests, lean)
    {
        protected override (AppendBlobClient Sdk, LeanBlob? Lean) BlobOf(string name) => (container.GetAppendBlobClient(name), lean?.Blob(name));

        protected override BlobBaseClient SdkOf((AppendBlobClient Sdk, LeanBlob? Lean) blob) => blob.Sdk;

        protected override Func<Task> First(int loop, (AppendBlobClient Sdk, LeanBlob? Lean) blob) => lean is null
            ? () => blob.Sdk.CreateAsync()
            : () => lean.CreateAsync(loop, blob.Lean!);

        // A loop's blob is its own: the loop picks its lean request.
        protected override Task PartAsync(int loop, int lane, (AppendBlobClient Sdk, LeanBlob? Lean) blob, long part, long offset, int size) => lean is null
            ? AppendSdkAsync(blob.Sdk, size)
            : lean.AppendAsync(loop, blob.Lean!, Buffer, size);

        private async Task AppendSdkAsync(AppendBlobClient blob, int size)
        {
            using var content = new MemoryStream(Buffer, 0, size, writable: false);
            // Not canceled with the slice: a request in flight finishes (or times out) and is counted.
            await blob.AppendBlockAsync(content).ConfigureAwait(false);
        }
    }
}
