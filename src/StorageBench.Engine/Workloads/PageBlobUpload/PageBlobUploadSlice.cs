using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Specialized;
using Microsoft.Extensions.Logging.Abstractions;
using StorageBench.Engine.Logging;

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
    public static async Task<SliceResult> RunAsync(BlobSlicePlan<PageBlobUploadSpec> plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live = null,
        ILogger? logger = null, BlockRetryDelays? retryDelays = null)
    {
        logger ??= NullLogger.Instance;
        var spec = plan.Workload;
        using var clients = target.CreateClients(plan.Client);
        var container = clients.Blobs.GetBlobContainerClient(plan.ContainerName);
        int lanes = (int)Math.Min(spec.ParallelRanges, RangeCount(spec.BlobSizeBytes, spec.PageRangeBytes));
        // One buffer serves every range of every blob: the driver allocates no payload per request.
        var page = EntityPayload.RandomBytes((int)Math.Min(spec.PageRangeBytes, spec.BlobSizeBytes));

        // Null on the SDK driver (client.driver "sdk"): then the PageBlobClient sends every request.
        using var lean = plan.Client.Driver == ClientSettings.SdkDriver ? null
            : new LeanPageUploads(clients.Lean, clients.BlobWire, plan.ContainerName, spec.BlobSizeBytes, lanes);
        var priming = await PrimeAsync(container, plan, page, lanes, time, lean, logger).ConfigureAwait(false);
        var requests = new RetriedBlobRequests(spec.Retries, retryDelays ?? new BlockRetryDelays(),
            (failure, outcome, chosen) => logger.BlockRetryScheduled(failure, plan.SliceIndex, outcome, chosen.Retry, chosen.Wait.TotalMilliseconds, chosen.ServerDelay?.TotalMilliseconds));
        var work = new PageWrites(plan, container, lean, page, lanes, requests);
        return await SliceLoop.RunAsync(new SliceStart(plan.StepId, PageBlobUploadRoom.Instance.Name, plan.SliceIndex, plan.TargetIndex, plan.StartAtUtc, spec, clients.Blobs.Uri), work,
            priming, () => clients.BlobWire.Sent, time, ct, live).ConfigureAwait(false);
    }

    /// <summary>A page blob: created at its full size, then Put Page of its ranges in parallel lanes.</summary>
    private sealed class PageWrites(BlobSlicePlan<PageBlobUploadSpec> plan, BlobContainerClient container, LeanPageUploads? lean, byte[] page, int lanes, RetriedBlobRequests requests)
        : BlobWrites<(PageBlobClient Sdk, LeanBlob? Lean)>(plan.BlobCount, plan.Workload.BlobSizeBytes, plan.Workload.PageRangeBytes, 1, lanes, requests)
    {
        protected override int SliceIndex => plan.SliceIndex;

        protected override bool Timed => plan.Workload.DurationSeconds > 0;

        protected override string? ContentMd5 => plan.Workload.VerifyContent ? EntityPayload.ContentMd5(page, plan.Workload.BlobSizeBytes, plan.Workload.PageRangeBytes) : null;

        protected override (PageBlobClient Sdk, LeanBlob? Lean) BlobOf(string name) => (container.GetPageBlobClient(name), lean?.Blob(name));

        protected override Func<Task> First(int loop, (PageBlobClient Sdk, LeanBlob? Lean) blob) => lean is null
            ? () => blob.Sdk.CreateAsync(plan.Workload.BlobSizeBytes)
            : () => lean.CreateAsync(0, blob.Lean!);

        protected override Task PartAsync(int loop, int lane, (PageBlobClient Sdk, LeanBlob? Lean) blob, long part, long offset, int size) => lean is null
            ? UploadPagesAsync(blob.Sdk, page, offset, size)
            : lean.UploadPagesAsync(lane, blob.Lean!, offset, page, size);
    }

    /// <summary>
    /// Untimed, before the start barrier (as every room primes: <see cref="Priming"/>): a probe request, then on every range
    /// loop a small page blob created and <c>client.primeRounds</c> Put Pages of its first 4 KiB through the measured driver,
    /// and the blob deleted: the measured requests' code path and connections, warm, with nothing left behind. It stops when
    /// the start instant comes near. Returns what it sent, for the cost estimate.
    /// </summary>
    private static async Task<SliceRequests> PrimeAsync(BlobContainerClient container, BlobSlicePlan<PageBlobUploadSpec> plan, byte[] page, int loops, TimeProvider time,
        LeanPageUploads? lean, ILogger logger)
    {
        var tally = new PrimingTally(logger, plan.SliceIndex);
        await tally.Quietly(container.GetPropertiesAsync()).ConfigureAwait(false);
        int size = Math.Min(page.Length, Priming.BlobBytes);
        int[] rounds = await Task.WhenAll(Enumerable.Range(0, plan.Client.PrimeRounds > 0 ? Math.Min(loops, Priming.MaxLoops) : 0).Select(loop => Task.Run(async () =>
        {
            string name = BlobNames.Of(Priming.Attempt, plan.SliceIndex, loop);
            var blob = container.GetPageBlobClient(name);
            var leanBlob = lean?.Blob(name);
            // The primer's blob is as large as the measured ones (its create is the same request); only its first pages are written.
            await tally.Quietly(lean is null ? blob.CreateAsync(plan.Workload.BlobSizeBytes) : lean.CreateAsync(loop, leanBlob!)).ConfigureAwait(false);
            int round = 0;
            var lastRound = TimeSpan.Zero;
            for (; round < plan.Client.PrimeRounds && Priming.HasTime(plan.StartAtUtc, time, lastRound); round++)
            {
                long began = time.GetTimestamp();
                await tally.Quietly(lean is null ? UploadPagesAsync(blob, page, 0, size) : lean.UploadPagesAsync(loop, leanBlob!, 0, page, size)).ConfigureAwait(false);
                lastRound = time.GetElapsedTime(began);
            }
            await tally.Quietly(blob.DeleteIfExistsAsync()).ConfigureAwait(false);
            return round;
        })));
        // Per primed loop: one create, its Put Pages and one Delete Blob.
        return tally.AddTo(new SliceRequests { PrimingProbes = 1, PrimingWrites = rounds.Sum() + rounds.Length, PrimingDeletes = rounds.Length });
    }

    /// <summary>Put Pages per blob: ranges of <paramref name="pageRangeBytes"/>, the last one shorter when the size is not a multiple.</summary>
    public static long RangeCount(long blobSizeBytes, int pageRangeBytes) => BlobWrites<int>.PartsOf(blobSizeBytes, pageRangeBytes);

    private static async Task UploadPagesAsync(PageBlobClient blob, byte[] page, long offset, int size)
    {
        using var content = new MemoryStream(page, 0, size, writable: false);
        // Not canceled with the slice: a request in flight finishes (or times out) and is counted.
        await blob.UploadPagesAsync(content, offset).ConfigureAwait(false);
    }
}
