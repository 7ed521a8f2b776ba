
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
/// <typeparam name="TBlob">A blob's handles on the driver the spec chose.</typeparam>
internal abstract class BlobWrites<TBlob>(long blobCount, long blobSizeBytes, int partBytes, int loops, int lanes, RetriedBlobRequests requests) : SliceWork<int>
{
    private long _started, _done, _goodBytes, _failedBytes;

    public override int Loops => loops;

    public override int Lanes => lanes;

    public override long Count => blobCount;

    public override bool CountsApart => true;

    public override int NewLoop(int index) => index;

    /// <summary>Parts per blob: the last one shorter when the size is not a multiple.</summary>
    public static long PartsOf(long blobSizeBytes, int partBytes) => (blobSizeBytes + partBytes - 1) / partBytes;

    protected abstract TBlob BlobOf(string name);

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
        long parts = PartsOf(blobSizeBytes, partBytes), next = -1;
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
                int size = (int)Math.Min(partBytes, blobSizeBytes - offset);
                if (!await requests.SendAsync(lane, size, () => PartAsync(state, l, blob, i, offset, size), op.Window.Stopping).ConfigureAwait(false))
                {
                    return -1 - bytes;
                }
                bytes += size;
            }
            return bytes;
        }, CancellationToken.None))).ConfigureAwait(false);
        bool landed = written.All(s => s >= 0)
            && (Last(state, blob) is not { } last || await requests.SendAsync(op.Window.Apart!, blobSizeBytes, last, op.Window.Stopping, countsAsPart: false).ConfigureAwait(false));
        if (landed)
        {
            Interlocked.Increment(ref _done);
            // Goodput counts the blobs done in the measured window only.
            Interlocked.Add(ref _goodBytes, op.Window.IsWarmupNow() ? 0 : blobSizeBytes);
        }
        else
        {
            Interlocked.Add(ref _failedBytes, written.Sum(s => s >= 0 ? s : -1 - s));
        }
    }

    /// <summary>The slice this is (blob names carry it).</summary>
    protected abstract int SliceIndex { get; }

    /// <summary>Whether the spec counts a fixed duration (then the planned blobs are those started).</summary>
    protected abstract bool Timed { get; }

    /// <summary>MD5 (base64) of the content every blob was given; null unless verifyContent asks for it.</summary>
    protected abstract string? ContentMd5 { get; }

    public override SliceResult Finish(SliceResult result, IReadOnlyList<WorkerRecorder> recorders) => result with
    {
        Objects = _done,
        CommittedUnits = _goodBytes,
        ContentMd5 = ContentMd5,
        Planned = Timed ? _started : blobCount,
        ObjectsFailed = _started - _done,
        FailedObjectUnits = _failedBytes,
    };
}
