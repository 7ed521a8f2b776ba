using System.Diagnostics;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Specialized;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using StorageBench.Engine.Logging;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads.Lean;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// Uploads one slice's page blobs one after another: each is created at its full size (Put Blob, x-ms-blob-type PageBlob),
/// then written by Put Page in ranges of at most PageRangeBytes, ParallelRanges of them in flight. Like the block upload
/// (<see cref="BlobUploadWorkload"/>), a throttled or transiently failed request is sent again after the back-off of
/// <see cref="BlockRetryDelays"/>, every attempt counted and only successful Put Pages timed; the create is counted, not
/// timed. A blob is done when its every page landed: its bytes are goodput. A blob whose create or a page still fails
/// is a failed blob (it exists, but holds zeros where its pages are missing); the bytes its Put Pages wrote are reported
/// as sent for failed blobs. A fixed-duration slice starts no new blob once its time is up. Blob names start with this
/// execution's attempt id (<see cref="BlobUploadWorkload.BlobName"/>). Canceling <c>ct</c> stops the slice: no new page is
/// sent, an unfinished blob counts as failed, and requests in flight are counted.
/// </summary>
public static class PageBlobUploadWorkload
{
    public const string Name = "pageBlobUpload";

    /// <param name="live">Shown the page and create recorders once they exist, for progress; null when nobody watches.</param>
    /// <param name="retryDelays">Chooses (and keeps) the waits before retries; a new one per slice when not given.</param>
    public static async Task<SliceResult> RunAsync(PageBlobSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live = null,
        ILogger? logger = null, BlockRetryDelays? retryDelays = null)
    {
        logger ??= NullLogger.Instance;
        var spec = plan.Workload;
        using var clients = target.CreateClients(plan.Client);
        var container = clients.Blobs.GetBlobContainerClient(plan.ContainerName);
        long rangeCount = RangeCount(spec.BlobSizeBytes, spec.PageRangeBytes);
        int loopCount = (int)Math.Min(spec.ParallelRanges, rangeCount);
        // One buffer serves every range of every blob: the driver allocates no payload per request.
        var page = EntityPayload.RandomBytes((int)Math.Min(spec.PageRangeBytes, spec.BlobSizeBytes));
        string attempt = SliceResult.NewAttemptId();

        // Null on the SDK driver (client.driver "sdk"): then the PageBlobClient sends every request.
        using var lean = plan.Client.Driver == ClientSettings.SdkDriver ? null
            : new LeanPageUploads(clients.Lean, clients.BlobWire, plan.ContainerName, spec.BlobSizeBytes, loopCount);
        var priming = await PrimeAsync(container, plan, page, loopCount, time, lean, logger).ConfigureAwait(false);

        var clock = await SliceClock.StartAtAsync(plan.StartAtUtc, time, ct).ConfigureAwait(false);
        double cpuAtStart = SliceResult.ProcessCpuSeconds();
        var workers = new WorkerRecorder[loopCount];
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var breaker = new UnreachableBreaker(workers.Length, stop, clients.Blobs.Uri);
        var requests = new RetriedBlobRequests(spec.Retries, new OperationSchedule(spec, long.MaxValue, 0, clock.StartTimestamp), breaker, retryDelays ?? new BlockRetryDelays(),
            (failure, outcome, chosen) => logger.BlockRetryScheduled(failure, plan.SliceIndex, outcome, chosen.Retry, chosen.Wait.TotalMilliseconds, chosen.ServerDelay?.TotalMilliseconds),
            stop.Token);
        for (int w = 0; w < workers.Length; w++)
        {
            workers[w] = clock.NewRecorder();
        }
        // Creates are counted but kept out of the Put Page latency histogram (as block uploads keep their commits).
        var creates = clock.NewRecorder(recordLatency: false);
        live?.Watch(workers, countOnly: creates);
        long started = 0, completed = 0, completedBytes = 0, failedBytes = 0;
        var loops = new Task<long>[workers.Length];
        for (int n = 0; !stop.IsCancellationRequested && (spec.DurationSeconds > 0 ? !requests.Schedule.HasEnded() : n < plan.BlobCount); n++)
        {
            started++;
            string name = BlobUploadWorkload.BlobName(attempt, plan.SliceIndex, n);
            var blob = container.GetPageBlobClient(name);
            var leanBlob = lean?.Blob(name);
            Func<Task> create = lean is null ? () => blob.CreateAsync(spec.BlobSizeBytes) : () => lean.CreateAsync(0, leanBlob!);
            if (!await requests.SendAsync(creates, 0, create, countsAsBlock: false).ConfigureAwait(false))
            {
                continue;
            }
            long nextRange = -1;
            for (int w = 0; w < workers.Length; w++)
            {
                var recorder = workers[w];
                int worker = w;
                loops[w] = Task.Run(async () =>
                {
                    // Bytes this loop wrote into this blob, or -1 - those when a page of it failed for good.
                    long written = 0;
                    bool ok = true;
                    for (long i = Interlocked.Increment(ref nextRange); i < rangeCount && ok; i = Interlocked.Increment(ref nextRange))
                    {
                        if (stop.IsCancellationRequested)
                        {
                            ok = false;
                            break;
                        }
                        long offset = i * spec.PageRangeBytes;
                        int size = (int)Math.Min(spec.PageRangeBytes, spec.BlobSizeBytes - offset);
                        ok = await requests.SendAsync(recorder, size, lean is null
                            ? () => UploadPagesAsync(blob, page, offset, size)
                            : () => lean.UploadPagesAsync(worker, leanBlob!, offset, page, size)).ConfigureAwait(false);
                        written += ok ? size : 0;
                    }
                    return ok ? written : -1 - written;
                }, CancellationToken.None);
            }
            long[] written = await Task.WhenAll(loops).ConfigureAwait(false);
            if (written.All(s => s >= 0))
            {
                completed++;
                // As a block blob's commit: its bytes are goodput unless it was done within warmupSeconds.
                completedBytes += requests.Schedule.IsWarmup(long.MaxValue, Stopwatch.GetTimestamp()) ? 0 : spec.BlobSizeBytes;
            }
            else
            {
                failedBytes += written.Sum(s => s >= 0 ? s : -1 - s);
            }
        }
        return SliceResult.FromWorkers(plan.StepId, attempt, Name, plan.SliceIndex, plan.TargetIndex, cpuAtStart, workers, creates,
            objects: completed,
            contentMd5: spec.VerifyContent ? BlobUploadWorkload.ContentMd5(page, spec.BlobSizeBytes, spec.PageRangeBytes) : null,
            requests: priming with { Wire = clients.BlobWire.Sent }) with
        {
            CommittedUnits = completedBytes,
            StartLagSeconds = clock.LagSeconds(plan.StartAtUtc),
            Canceled = ct.IsCancellationRequested,
            StopReason = breaker.Reason,
            Planned = spec.DurationSeconds > 0 ? started : plan.BlobCount,
            ObjectsFailed = started - completed,
            FailedObjectUnits = failedBytes,
        };
    }

    /// <summary>
    /// Untimed, before the start barrier (see <see cref="BlobUploadWorkload"/>'s primer): a probe request, then on every range
    /// loop a small page blob created and <c>client.primeRounds</c> Put Pages of its first 4 KiB through the measured driver,
    /// and the blob deleted: the measured requests' code path and connections, warm, with nothing left behind. It stops when
    /// the start instant comes near. Returns what it sent, for the cost estimate.
    /// </summary>
    private static async Task<SliceRequests> PrimeAsync(BlobContainerClient container, PageBlobSlicePlan plan, byte[] page, int loops, TimeProvider time,
        LeanPageUploads? lean, ILogger logger)
    {
        var tally = new PrimingTally(logger, plan.SliceIndex);
        await tally.Quietly(container.GetPropertiesAsync()).ConfigureAwait(false);
        int size = Math.Min(page.Length, Priming.BlobBytes);
        int[] rounds = await Task.WhenAll(Enumerable.Range(0, plan.Client.PrimeRounds > 0 ? Math.Min(loops, Priming.MaxLoops) : 0).Select(loop => Task.Run(async () =>
        {
            string name = BlobUploadWorkload.BlobName(TableInsertWorkload.PrimerAttempt, plan.SliceIndex, loop);
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
    public static long RangeCount(long blobSizeBytes, int pageRangeBytes) => (blobSizeBytes + pageRangeBytes - 1) / pageRangeBytes;

    private static async Task UploadPagesAsync(PageBlobClient blob, byte[] page, long offset, int size)
    {
        using var content = new MemoryStream(page, 0, size, writable: false);
        // Not canceled with the slice: a request in flight finishes (or times out) and is counted.
        await blob.UploadPagesAsync(content, offset).ConfigureAwait(false);
    }
}
