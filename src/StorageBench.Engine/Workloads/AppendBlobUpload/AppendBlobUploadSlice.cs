using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Specialized;

namespace StorageBench.Engine.Workloads.AppendBlobUpload;

/// <summary>
/// One appendBlobUpload slice on the engine's blob writer (<see cref="BlobWrites{TBlob}"/>): parallelBlobs loops, each
/// creating its next blob and appending to it one Append Block at a time (an append blob grows in order). An append is
/// never sent again: one whose answer was lost may have landed, and a second would append its bytes twice, so a failed
/// append fails its blob (throttling is counted as such).
/// </summary>
internal static class AppendBlobUploadSlice
{
    public static async Task<SliceResult> RunAsync(BlobSlicePlan<AppendBlobUploadSpec> plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger)
    {
        var spec = plan.Workload;
        using var clients = target.CreateClients(plan.Client);
        var container = clients.Blobs.GetBlobContainerClient(plan.ContainerName);
        int loops = spec.DurationSeconds > 0 ? spec.ParallelBlobs : Math.Min(spec.ParallelBlobs, plan.BlobCount);
        var buffer = EntityPayload.RandomBytes((int)Math.Min(spec.AppendSizeBytes, spec.BlobSizeBytes));
        // Null on the SDK driver (client.driver "sdk"): then the AppendBlobClient sends every request.
        using var lean = plan.Client.Driver == ClientSettings.SdkDriver ? null : new LeanAppendBlocks(clients.Lean, clients.BlobWire, plan.ContainerName, loops);
        var work = new Appends(plan, container, lean, buffer, loops, new RetriedBlobRequests(0, new BlockRetryDelays(), (_, _, _) => { }));
        var priming = await PrimeAsync(plan, work, loops, time, logger).ConfigureAwait(false);
        return await SliceLoop.RunAsync(new SliceStart(plan.StepId, AppendBlobUploadRoom.Instance.Name, plan.SliceIndex, plan.TargetIndex, plan.StartAtUtc, spec,
            clients.Blobs.Uri), work, priming, () => clients.BlobWire.Sent, time, ct, live).ConfigureAwait(false);
    }

    /// <summary>
    /// Untimed, before the start barrier: a probe, then on every loop (up to 16) a small append blob created, <c>client.primeRounds</c>
    /// appends of <see cref="Priming.BlobBytes"/> through the measured driver, and the blob deleted. Counted for cost.
    /// </summary>
    private static async Task<SliceRequests> PrimeAsync(BlobSlicePlan<AppendBlobUploadSpec> plan, Appends work, int loops, TimeProvider time, ILogger? logger)
    {
        var tally = new PrimingTally(logger, plan.SliceIndex);
        await tally.Quietly(work.Container.GetPropertiesAsync()).ConfigureAwait(false);
        int size = Math.Min(work.Buffer.Length, Priming.BlobBytes);
        int[] rounds = await Task.WhenAll(Enumerable.Range(0, plan.Client.PrimeRounds > 0 ? Math.Min(loops, Priming.MaxLoops) : 0).Select(loop => Task.Run(async () =>
        {
            var blob = work.Of(BlobNames.Of(Priming.Attempt, plan.SliceIndex, loop));
            await tally.Quietly(work.Create(loop, blob)).ConfigureAwait(false);
            int round = 0;
            for (var lastRound = TimeSpan.Zero; round < plan.Client.PrimeRounds && Priming.HasTime(plan.StartAtUtc, time, lastRound); round++)
            {
                long began = time.GetTimestamp();
                await tally.Quietly(work.Append(loop, blob, size)).ConfigureAwait(false);
                lastRound = time.GetElapsedTime(began);
            }
            await tally.Quietly(blob.Sdk.DeleteIfExistsAsync()).ConfigureAwait(false);
            return round;
        }))).ConfigureAwait(false);
        // Per primed loop: one create, its appends and one Delete Blob.
        return tally.AddTo(new SliceRequests { PrimingProbes = 1, PrimingWrites = rounds.Sum() + rounds.Length, PrimingDeletes = rounds.Length });
    }

    private sealed class Appends(BlobSlicePlan<AppendBlobUploadSpec> plan, BlobContainerClient container, LeanAppendBlocks? lean, byte[] buffer, int loops, RetriedBlobRequests requests)
        : BlobWrites<(AppendBlobClient Sdk, LeanBlob? Lean)>(plan.BlobCount, plan.Workload.BlobSizeBytes, plan.Workload.AppendSizeBytes, loops, 1, requests)
    {
        public BlobContainerClient Container => container;

        public byte[] Buffer => buffer;

        protected override int SliceIndex => plan.SliceIndex;

        protected override bool Timed => plan.Workload.DurationSeconds > 0;

        protected override string? ContentMd5 => plan.Workload.VerifyContent ? EntityPayload.ContentMd5(buffer, plan.Workload.BlobSizeBytes, plan.Workload.AppendSizeBytes) : null;

        public (AppendBlobClient Sdk, LeanBlob? Lean) Of(string name) => BlobOf(name);

        public Task Create(int loop, (AppendBlobClient Sdk, LeanBlob? Lean) blob) => First(loop, blob)();

        protected override (AppendBlobClient Sdk, LeanBlob? Lean) BlobOf(string name) => (container.GetAppendBlobClient(name), lean?.Blob(name));

        protected override Func<Task> First(int loop, (AppendBlobClient Sdk, LeanBlob? Lean) blob) => lean is null
            ? () => blob.Sdk.CreateAsync()
            : () => lean.CreateAsync(loop, blob.Lean!);

        // A loop's blob is its own: the loop picks its lean request.
        protected override Task PartAsync(int loop, int lane, (AppendBlobClient Sdk, LeanBlob? Lean) blob, long part, long offset, int size) => Append(loop, blob, size);

        public Task Append(int loop, (AppendBlobClient Sdk, LeanBlob? Lean) blob, int size) => lean is null
            ? AppendSdkAsync(blob.Sdk, size)
            : lean.AppendAsync(loop, blob.Lean!, buffer, size);

        private async Task AppendSdkAsync(AppendBlobClient blob, int size)
        {
            using var content = new MemoryStream(buffer, 0, size, writable: false);
            // Not canceled with the slice: a request in flight finishes (or times out) and is counted.
            await blob.AppendBlockAsync(content).ConfigureAwait(false);
        }
    }
}
