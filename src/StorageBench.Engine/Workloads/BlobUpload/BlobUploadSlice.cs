using System.Text;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Specialized;
using Microsoft.Extensions.Logging.Abstractions;
using StorageBench.Engine.Logging;

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
    public static async Task<SliceResult> RunAsync(BlobSlicePlan<BlobUploadSpec> plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live = null,
        ILogger? logger = null, BlockRetryDelays? retryDelays = null)
    {
        logger ??= NullLogger.Instance;
        var spec = plan.Workload;
        using var clients = target.CreateClients(plan.Client);
        var container = clients.Blobs.GetBlobContainerClient(plan.ContainerName);
        int blockCount = BlockCount(spec.BlobSizeBytes, spec.BlockSizeBytes);
        int lanes = Math.Min(spec.ParallelBlocks, blockCount);
        // One buffer serves every block of every blob: the driver allocates no payload per request.
        var block = EntityPayload.RandomBytes((int)Math.Min(spec.BlockSizeBytes, spec.BlobSizeBytes));
        var blockIds = BlockIds(blockCount);

        // Null on the SDK driver (client.driver "sdk"): then the BlockBlobClient sends every request.
        using var lean = plan.Client.Driver == ClientSettings.SdkDriver ? null : new LeanBlockUploads(clients.Lean, clients.BlobWire, plan.ContainerName, blockIds, lanes);
        var priming = await PrimeAsync(container, plan, block, blockIds[0], lanes, time, lean, logger).ConfigureAwait(false);
        var requests = new RetriedBlobRequests(spec.BlockRetries, retryDelays ?? new BlockRetryDelays(),
            (failure, outcome, chosen) => logger.BlockRetryScheduled(failure, plan.SliceIndex, outcome, chosen.Retry, chosen.Wait.TotalMilliseconds, chosen.ServerDelay?.TotalMilliseconds));
        var work = new BlockWrites(plan, container, lean, block, blockIds, lanes, requests);
        return await SliceLoop.RunAsync(new SliceStart(plan.StepId, BlobUploadRoom.Instance.Name, plan.SliceIndex, plan.TargetIndex, plan.StartAtUtc, spec, clients.Blobs.Uri), work,
            priming, () => clients.BlobWire.Sent, time, ct, live).ConfigureAwait(false);
    }

    /// <summary>A block blob: Put Block ×N in parallel lanes, then Put Block List.</summary>
    private sealed class BlockWrites(BlobSlicePlan<BlobUploadSpec> plan, BlobContainerClient container, LeanBlockUploads? lean, byte[] block, string[] blockIds, int lanes,
        RetriedBlobRequests requests)
        : BlobWrites<(BlockBlobClient Sdk, LeanBlob? Lean)>(plan.BlobCount, plan.Workload.BlobSizeBytes, plan.Workload.BlockSizeBytes, 1, lanes, requests)
    {
        protected override int SliceIndex => plan.SliceIndex;

        protected override bool Timed => plan.Workload.DurationSeconds > 0;

        protected override string? ContentMd5 => plan.Workload.VerifyContent ? EntityPayload.ContentMd5(block, plan.Workload.BlobSizeBytes, plan.Workload.BlockSizeBytes) : null;

        protected override (BlockBlobClient Sdk, LeanBlob? Lean) BlobOf(string name) => (container.GetBlockBlobClient(name), lean?.Blob(name));

        protected override Task PartAsync(int loop, int lane, (BlockBlobClient Sdk, LeanBlob? Lean) blob, long part, long offset, int size) => lean is null
            ? StageBlockAsync(blob.Sdk, blockIds[part], block, size)
            : lean.StageBlockAsync(lane, blob.Lean!, (int)part, block, size);

        protected override Func<Task> Last(int loop, (BlockBlobClient Sdk, LeanBlob? Lean) blob) => lean is null
            ? () => blob.Sdk.CommitBlockListAsync(new ArraySegment<string>(blockIds, 0, blockIds.Length))
            : () => lean.CommitBlockListAsync(blob.Lean!);
    }

    /// <summary>
    /// Untimed, before the start barrier (as every room primes: <see cref="Priming"/>): a probe request, then on every
    /// block loop <c>client.primeRounds</c> Put Blocks of a small block, one Put Block List and a delete:
    /// the measured requests' code path and connections, warm, with nothing left behind; it stops when the
    /// start instant comes near. Returns what it sent, for the cost estimate.
    /// </summary>
    private static async Task<SliceRequests> PrimeAsync(BlobContainerClient container, BlobSlicePlan<BlobUploadSpec> plan, byte[] block, string blockId, int loops, TimeProvider time,
        LeanBlockUploads? lean, ILogger logger)
    {
        var tally = new PrimingTally(logger, plan.SliceIndex);
        await tally.Quietly(container.GetPropertiesAsync()).ConfigureAwait(false);
        int[] rounds = await Task.WhenAll(Enumerable.Range(0, plan.Client.PrimeRounds > 0 ? Math.Min(loops, Priming.MaxLoops) : 0).Select(loop => Task.Run(async () =>
        {
            var blob = container.GetBlockBlobClient(BlobNames.Of(Priming.Attempt, plan.SliceIndex, loop));
            var leanBlob = lean?.Blob(BlobNames.Of(Priming.Attempt, plan.SliceIndex, loop));
            int round = 0;
            var lastRound = TimeSpan.Zero;
            for (; round < plan.Client.PrimeRounds && Priming.HasTime(plan.StartAtUtc, time, lastRound); round++)
            {
                long began = time.GetTimestamp();
                // Blocks through the measured driver (the path to warm); the commit and delete through the SDK.
                await tally.Quietly(lean is null
                    ? StageBlockAsync(blob, blockId, block, Math.Min(block.Length, Priming.BlobBytes))
                    : lean.StageBlockAsync(loop, leanBlob!, 0, block, Math.Min(block.Length, Priming.BlobBytes))).ConfigureAwait(false);
                lastRound = time.GetElapsedTime(began);
            }
            await tally.Quietly(blob.CommitBlockListAsync([blockId])).ConfigureAwait(false);
            await tally.Quietly(blob.DeleteIfExistsAsync()).ConfigureAwait(false);
            return round;
        })));
        // Per primed loop: its Put Blocks, one Put Block List and one Delete Blob.
        return tally.AddTo(new SliceRequests { PrimingProbes = 1, PrimingWrites = rounds.Sum() + rounds.Length, PrimingDeletes = rounds.Length });
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
