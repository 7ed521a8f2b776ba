using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Specialized;
using StorageBench.Engine.Logging;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// The one skeleton every blob upload runs on the engine's loop: one operation is one blob — an optional first request (a page
/// blob's create), its parts (Put Block, Put Page, Append Block) taken in order by the operation's lanes (the parts in flight
/// at once), and an optional last request (a block blob's commit). Firsts and lasts are counted apart, never timed. A
/// throttled or transiently failed request is sent again (<see cref="RetriedBlobRequests"/>). A blob is done when its every
/// request landed: its bytes are goodput unless it was done in the warm-up. A blob that fails is a failed blob, and the bytes
/// its parts wrote are reported as sent for failed blobs. A fixed-duration slice starts no new blob once its time is up;
/// canceling stops it: no new part is sent, an unfinished blob counts as failed.
/// </summary>
/// <typeparam name="TSpec">The room's section of the spec.</typeparam>
/// <typeparam name="TBlob">A blob's handles on the driver the spec chose.</typeparam>
/// <param name="partBytes">Bytes of a part (the last of a blob may be shorter): one buffer of them serves every part of every blob.</param>
/// <param name="lean">The lean driver's requests, disposed with the writes; null on the SDK driver.</param>
internal abstract class BlobWrites<TSpec, TBlob>(BlobSlicePlan<TSpec> plan, int partBytes, int loops, int lanes, RetriedBlobRequests requests, IDisposable? lean)
    : SliceWork<int>, IDisposable
    where TSpec : BlobWriteSpec
{
    private long _started, _done, _goodBytes, _failedBytes;

    /// <summary>The room's section of the spec.</summary>
    protected TSpec Spec => plan.Workload;

    private long BlobSizeBytes => plan.Workload.BlobSizeBytes;

    /// <summary>The content of every part: the driver allocates no payload per request.</summary>
    protected byte[] Buffer { get; } = EntityPayload.RandomBytes((int)Math.Min(partBytes, plan.Workload.BlobSizeBytes));

    public override int Loops => loops;

    public override int Lanes => lanes;

    public override long Count => plan.BlobCount;

    public override bool CountsApart => true;

    public override int NewLoop(int index) => index;

    protected abstract TBlob BlobOf(string name);

    /// <summary>The blob's SDK client: priming deletes its blob through it.</summary>
    protected abstract BlobBaseClient SdkOf(TBlob blob);

    /// <summary>What ends a primer's blob before its delete (a block blob's commit of its one block); null when nothing does.</summary>
    protected virtual Func<Task>? PrimeLast(TBlob blob) => null;

    /// <summary>The request that must land before the parts (a create); null when there is none.</summary>
    protected virtual Func<Task>? First(int loop, TBlob blob) => null;

    /// <summary>Part <paramref name="part"/> of the blob: <paramref name="size"/> bytes at <paramref name="offset"/>, from loop <paramref name="loop"/> on its lane <paramref name="lane"/>.</summary>
    protected abstract Task PartAsync(int loop, int lane, TBlob blob, long part, long offset, int size);

    /// <summary>The request that makes the written parts the blob (a commit); null when there is none.</summary>
    protected virtual Func<Task>? Last(int loop, TBlob blob) => null;

    public override async Task SendAsync(int state, Operation op)
    {
        Interlocked.Increment(ref _started);
        var blob = BlobOf(BlobNames.Of(AttemptId, SliceIndex, (int)op.Index));
        if (First(state, blob) is { } first && !await requests.SendAsync(op.Window.Apart!, 0, first, op.Window.Stopping, countsAsPart: false).ConfigureAwait(false))
        {
            return;
        }
        long parts = BlobWriteSlice.PartsOf(BlobSizeBytes, partBytes), next = -1;
        long[] written = await Task.WhenAll(op.Lanes.Select((lane, l) => Task.Run(async () =>
        {
            // Bytes this lane wrote into this blob, or -1 - those when a part of it failed for good.
            long bytes = 0;
            for (long i = Interlocked.Increment(ref next); i < parts; i = Interlocked.Increment(ref next))
            {
                if (op.Window.Stopping.IsCancellationRequested)
                {
                    return -1 - bytes;
                }
                long offset = i * partBytes;
                int size = (int)Math.Min(partBytes, BlobSizeBytes - offset);
                if (!await requests.SendAsync(lane, size, () => PartAsync(state, l, blob, i, offset, size), op.Window.Stopping).ConfigureAwait(false))
                {
                    return -1 - bytes;
                }
                bytes += size;
            }
            return bytes;
        }, CancellationToken.None))).ConfigureAwait(false);
        bool landed = written.All(s => s >= 0)
            && (Last(state, blob) is not { } last || await requests.SendAsync(op.Window.Apart!, BlobSizeBytes, last, op.Window.Stopping, countsAsPart: false).ConfigureAwait(false));
        if (landed)
        {
            Interlocked.Increment(ref _done);
            // Goodput counts the blobs done in the measured window only.
            Interlocked.Add(ref _goodBytes, op.Window.IsWarmupNow() ? 0 : BlobSizeBytes);
        }
        else
        {
            Interlocked.Add(ref _failedBytes, written.Sum(s => s >= 0 ? s : -1 - s));
        }
    }

    private int SliceIndex => plan.SliceIndex;

    /// <summary>MD5 (base64) of the content every blob was given; null unless verifyContent asks for it.</summary>
    private string? ContentMd5 => plan.Workload.VerifyContent ? EntityPayload.ContentMd5(Buffer, BlobSizeBytes, partBytes) : null;

    /// <summary>
    /// Untimed, before the start barrier (as every room primes: <see cref="Priming"/>): a probe request, then on every loop and lane
    /// (up to <see cref="Priming.MaxLoops"/>) a small blob of its own: its first request, <c>client.primeRounds</c> parts of
    /// <see cref="Priming.BlobBytes"/> at most through the measured driver, its priming end and a delete — the measured requests'
    /// code path and connections, warm, with nothing left behind. It stops when the start instant comes near. Returns what it sent, for the cost estimate.
    /// </summary>
    public async Task<SliceRequests> PrimeAsync(BlobContainerClient container, TimeProvider time, ILogger? logger)
    {
        var (client, startAtUtc) = (plan.Client, plan.StartAtUtc);
        var tally = new PrimingTally(logger, SliceIndex);
        await tally.Quietly(container.GetPropertiesAsync()).ConfigureAwait(false);
        int size = (int)Math.Min(Math.Min(partBytes, BlobSizeBytes), Priming.BlobBytes);
        int[] rounds = await Task.WhenAll(Enumerable.Range(0, client.PrimeRounds > 0 ? Math.Min(loops * lanes, Priming.MaxLoops) : 0).Select(loop => Task.Run(async () =>
        {
            var blob = BlobOf(BlobNames.Of(Priming.Attempt, SliceIndex, loop));
            if (First(loop, blob) is { } first)
            {
                await tally.Quietly(first()).ConfigureAwait(false);
            }
            int round = 0;
            for (var lastRound = TimeSpan.Zero; round < client.PrimeRounds && Priming.HasTime(startAtUtc, time, lastRound); round++)
            {
                long began = time.GetTimestamp();
                await tally.Quietly(PartAsync(loop, loop, blob, 0, 0, size)).ConfigureAwait(false);
                lastRound = time.GetElapsedTime(began);
            }
            if (PrimeLast(blob) is { } last)
            {
                await tally.Quietly(last()).ConfigureAwait(false);
            }
            await tally.Quietly(SdkOf(blob).DeleteIfExistsAsync()).ConfigureAwait(false);
            return round;
        }))).ConfigureAwait(false);
        // Per primed loop: its parts, its first or its last request, and one Delete Blob.
        return tally.AddTo(new SliceRequests { PrimingProbes = 1, PrimingWrites = rounds.Sum() + rounds.Length, PrimingDeletes = rounds.Length });
    }

    public void Dispose() => lean?.Dispose();

    public override SliceResult Finish(SliceResult result, IReadOnlyList<WorkerRecorder> recorders) => result with
    {
        Objects = _done,
        CommittedUnits = _goodBytes,
        ContentMd5 = ContentMd5,
        // A fixed duration plans the blobs it started.
        Planned = plan.Workload.DurationSeconds > 0 ? _started : plan.BlobCount,
        ObjectsFailed = _started - _done,
        FailedObjectUnits = _failedBytes,
    };
}

/// <summary>The slice every blob write room runs: its clients, its writes on the driver the spec chose, priming, then the engine's loop.</summary>
internal static class BlobWriteSlice
{
    /// <summary>Parts per blob: the last one shorter when the size is not a multiple.</summary>
    public static long PartsOf(long blobSizeBytes, int partBytes) => (blobSizeBytes + partBytes - 1) / partBytes;

    /// <param name="retries">How many more times a throttled or transiently failed request is sent.</param>
    /// <param name="writesOf">The room's writes, given the slice's clients, its container and its retried requests.</param>
    public static async Task<SliceResult> RunAsync<TSpec, TBlob>(Workload room, BlobSlicePlan<TSpec> plan, StorageTarget target, TimeProvider time, CancellationToken ct,
        LiveSlice? live, ILogger? logger, int retries, BlockRetryDelays? retryDelays, Func<StorageClients, BlobContainerClient, RetriedBlobRequests, BlobWrites<TSpec, TBlob>> writesOf)
        where TSpec : BlobWriteSpec
    {
        logger ??= Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance;
        using var clients = target.CreateClients(plan.Client);
        var container = clients.Blobs.GetBlobContainerClient(plan.ContainerName);
        var requests = new RetriedBlobRequests(retries, retryDelays ?? new BlockRetryDelays(),
            (failure, outcome, chosen) => logger.BlockRetryScheduled(failure, plan.SliceIndex, outcome, chosen.Retry, chosen.Wait.TotalMilliseconds, chosen.ServerDelay?.TotalMilliseconds));
        using var work = writesOf(clients, container, requests);
        var priming = await work.PrimeAsync(container, time, logger).ConfigureAwait(false);
        return await SliceLoop.RunAsync(new SliceStart(plan.StepId, room.Name, plan.SliceIndex, plan.TargetIndex, plan.StartAtUtc, plan.Workload, clients.Blobs.Uri), work,
            priming, () => clients.BlobWire.Sent, time, ct, live).ConfigureAwait(false);
    }
}
