using System.Security.Cryptography;
using System.Text;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Specialized;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using StorageBench.Engine.Logging;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads.Lean;

namespace StorageBench.Engine.Workloads;

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
public static class BlobUploadWorkload
{
    public const string Name = "blobUpload";

    /// <param name="live">Shown the block and commit recorders once they exist, for progress; null when nobody watches.</param>
    /// <param name="retryDelays">Chooses (and keeps) the waits before retries; a new one per slice when not given.</param>
    public static async Task<SliceResult> RunAsync(BlobSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live = null,
        ILogger? logger = null, BlockRetryDelays? retryDelays = null)
    {
        logger ??= NullLogger.Instance;
        var spec = plan.Workload;
        using var clients = target.CreateClients(plan.Client);
        var container = clients.Blobs.GetBlobContainerClient(plan.ContainerName);
        int blockCount = BlockCount(spec.BlobSizeBytes, spec.BlockSizeBytes);
        // One buffer serves every block of every blob: the driver allocates no payload per request.
        var block = EntityPayload.RandomBytes((int)Math.Min(spec.BlockSizeBytes, spec.BlobSizeBytes));
        var blockIds = BlockIds(blockCount);
        string attempt = SliceResult.NewAttemptId();

        // Null on the SDK driver (client.driver "sdk"): then the BlockBlobClient sends every request.
        using var lean = plan.Client.Driver == ClientSettings.SdkDriver ? null : new LeanBlockUploads(clients.Lean, clients.BlobWire, plan.ContainerName, blockIds, Math.Min(spec.ParallelBlocks, blockCount));
        var priming = await PrimeAsync(container, plan, block, blockIds[0], Math.Min(spec.ParallelBlocks, blockCount), time, lean, logger).ConfigureAwait(false);

        var clock = await SliceClock.StartAtAsync(plan.StartAtUtc, time, ct).ConfigureAwait(false);
        double cpuAtStart = SliceResult.ProcessCpuSeconds();
        var workers = new WorkerRecorder[Math.Min(spec.ParallelBlocks, blockCount)];
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var breaker = new UnreachableBreaker(workers.Length, stop, clients.Blobs.Uri);
        var upload = new RetriedBlobRequests(spec.BlockRetries, new OperationSchedule(spec, long.MaxValue, 0, clock.StartTimestamp), breaker, retryDelays ?? new BlockRetryDelays(),
            (failure, outcome, chosen) => logger.BlockRetryScheduled(failure, plan.SliceIndex, outcome, chosen.Retry, chosen.Wait.TotalMilliseconds, chosen.ServerDelay?.TotalMilliseconds),
            stop.Token);
        for (int w = 0; w < workers.Length; w++)
        {
            workers[w] = clock.NewRecorder();
        }
        // Commits are counted but kept out of the Put Block latency histogram.
        var commits = clock.NewRecorder(recordLatency: false);
        live?.Watch(workers, countOnly: commits);
        long started = 0, committed = 0, failedBytes = 0;
        var loops = new Task<long>[workers.Length];
        for (int n = 0; !stop.IsCancellationRequested && (spec.DurationSeconds > 0 ? !upload.Schedule.HasEnded() : n < plan.BlobCount); n++)
        {
            started++;
            var blob = container.GetBlockBlobClient(BlobName(attempt, plan.SliceIndex, n));
            var leanBlob = lean?.Blob(BlobName(attempt, plan.SliceIndex, n));
            long nextBlock = -1;
            for (int w = 0; w < workers.Length; w++)
            {
                var recorder = workers[w];
                int worker = w;
                loops[w] = Task.Run(async () =>
                {
                    // Bytes this worker staged for this blob, or -1 when a block of it failed for good.
                    long staged = 0;
                    bool ok = true;
                    for (long i = Interlocked.Increment(ref nextBlock); i < blockCount && ok; i = Interlocked.Increment(ref nextBlock))
                    {
                        if (stop.IsCancellationRequested)
                        {
                            ok = false;
                            break;
                        }
                        int size = (int)Math.Min(spec.BlockSizeBytes, spec.BlobSizeBytes - i * spec.BlockSizeBytes);
                        ok = await upload.SendAsync(recorder, size, lean is null
                            ? () => StageBlockAsync(blob, blockIds[i], block, size)
                            : () => lean.StageBlockAsync(worker, leanBlob!, (int)i, block, size)).ConfigureAwait(false);
                        staged += ok ? size : 0;
                    }
                    return ok ? staged : -1 - staged;
                }, CancellationToken.None);
            }
            long[] staged = await Task.WhenAll(loops).ConfigureAwait(false);
            bool allStaged = staged.All(s => s >= 0);
            Func<Task> commit = lean is null ? () => blob.CommitBlockListAsync(new ArraySegment<string>(blockIds, 0, blockCount)) : () => lean.CommitBlockListAsync(leanBlob!);
            if (allStaged && await upload.SendAsync(commits, spec.BlobSizeBytes, commit, countsAsBlock: false).ConfigureAwait(false))
            {
                committed++;
            }
            else
            {
                failedBytes += staged.Sum(s => s >= 0 ? s : -1 - s);
            }
        }
        return SliceResult.FromWorkers(plan.StepId, attempt, Name, plan.SliceIndex, plan.TargetIndex, cpuAtStart, workers, commits,
            objects: committed,
            contentMd5: spec.VerifyContent ? ContentMd5(block, spec.BlobSizeBytes, spec.BlockSizeBytes) : null,
            requests: priming with { Wire = clients.BlobWire.Sent }) with
        {
            StartLagSeconds = clock.LagSeconds(plan.StartAtUtc),
            Canceled = ct.IsCancellationRequested,
            StopReason = breaker.Reason,
            Planned = spec.DurationSeconds > 0 ? started : plan.BlobCount,
            ObjectsFailed = started - committed,
            FailedObjectUnits = failedBytes,
        };
    }

    /// <summary>
    /// Untimed, before the start barrier (see TableInsertWorkload's primer): a probe request, then on every
    /// block loop <c>client.primeRounds</c> Put Blocks of a small block, one Put Block List and a delete:
    /// the measured requests' code path and connections, warm, with nothing left behind; it stops when the
    /// start instant comes near. Returns what it sent, for the cost estimate.
    /// </summary>
    private static async Task<SliceRequests> PrimeAsync(BlobContainerClient container, BlobSlicePlan plan, byte[] block, string blockId, int loops, TimeProvider time,
        LeanBlockUploads? lean, ILogger logger)
    {
        var tally = new PrimingTally(logger, plan.SliceIndex);
        await tally.Quietly(container.GetPropertiesAsync()).ConfigureAwait(false);
        int[] rounds = await Task.WhenAll(Enumerable.Range(0, plan.Client.PrimeRounds > 0 ? Math.Min(loops, Priming.MaxLoops) : 0).Select(loop => Task.Run(async () =>
        {
            var blob = container.GetBlockBlobClient(BlobName(TableInsertWorkload.PrimerAttempt, plan.SliceIndex, loop));
            var leanBlob = lean?.Blob(BlobName(TableInsertWorkload.PrimerAttempt, plan.SliceIndex, loop));
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

    /// <summary>"attempt/sSSS-NNNNNNN": slices never collide, and each execution's blobs are its own.</summary>
    public static string BlobName(string attempt, int slice, int sequence) => $"{attempt}/s{slice:D3}-{sequence:D7}";

    /// <summary>The attempt id a blob name starts with ("" for a name this tool did not write).</summary>
    public static string AttemptOf(string blobName) => blobName.Length > 9 && blobName[8] == '/' ? blobName[..8] : "";

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

    /// <summary>MD5 of a whole blob as uploaded: each block is the start of the shared buffer.</summary>
    public static string ContentMd5(byte[] block, long blobSizeBytes, int blockSizeBytes)
    {
        using var md5 = IncrementalHash.CreateHash(HashAlgorithmName.MD5);
        for (long offset = 0; offset < blobSizeBytes; offset += blockSizeBytes)
        {
            md5.AppendData(block, 0, (int)Math.Min(blockSizeBytes, blobSizeBytes - offset));
        }
        return Convert.ToBase64String(md5.GetHashAndReset());
    }
}
