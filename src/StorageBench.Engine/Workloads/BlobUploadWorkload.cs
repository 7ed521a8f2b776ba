using System.Diagnostics;
using System.Text;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Specialized;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// Uploads one slice's blobs one after another; within a blob, ParallelBlocks Put Block requests are
/// in flight, then Put Block List commits them (as the seeds' storage client did).
/// Every request is counted; the latency histogram holds Put Block requests.
/// </summary>
public static class BlobUploadWorkload
{
    public const string Name = "blobUpload";

    public static async Task<SliceResult> RunAsync(BlobSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct)
    {
        using var clients = target.CreateClients(plan.Client);
        var container = clients.Blobs.GetBlobContainerClient(plan.ContainerName);
        int blockCount = (int)((plan.BlobSizeBytes + plan.BlockSizeBytes - 1) / plan.BlockSizeBytes);
        var block = EntityPayload.RandomBytes((int)Math.Min(plan.BlockSizeBytes, plan.BlobSizeBytes));
        var blockIds = BlockIds(blockCount);

        var clock = await SliceClock.StartAtAsync(plan.StartAtUtc, time, ct).ConfigureAwait(false);
        var workers = new WorkerRecorder[Math.Min(plan.ParallelBlocks, blockCount)];
        for (int w = 0; w < workers.Length; w++)
        {
            workers[w] = clock.NewRecorder();
        }
        // Commits are counted but kept out of the Put Block latency histogram.
        var commits = clock.NewRecorder(recordLatency: false);
        long committed = 0;
        var loops = new Task<bool>[workers.Length];
        for (int b = 0; b < plan.BlobCount; b++)
        {
            var blob = container.GetBlockBlobClient(BlobName(plan.FirstBlobIndex + b));
            long next = -1;
            for (int w = 0; w < workers.Length; w++)
            {
                var recorder = workers[w];
                loops[w] = Task.Run(() => StageBlocksAsync(plan, blob, block, blockIds, blockCount, () => Interlocked.Increment(ref next), recorder, ct), ct);
            }
            bool allStaged = (await Task.WhenAll(loops).ConfigureAwait(false)).All(ok => ok);
            if (allStaged && await CommitAsync(blob, blockIds, blockCount, commits, ct).ConfigureAwait(false))
            {
                committed++;
            }
        }
        return SliceResult.FromWorkers(Name, plan.SliceIndex, clock.StartedUtc, clock.UtcNow, [.. workers, commits],
            objects: committed, objectUnits: committed * plan.BlobSizeBytes);
    }

    public static string BlobName(int index) => $"blob-{index:D6}";

    /// <summary>Block ids must be base64 of equal length within a blob; the same list serves every blob.</summary>
    private static string[] BlockIds(int count) =>
        [.. Enumerable.Range(0, count).Select(i => Convert.ToBase64String(Encoding.ASCII.GetBytes($"block-{i:D6}")))];

    private static async Task<bool> StageBlocksAsync(BlobSlicePlan plan, BlockBlobClient blob, byte[] block, string[] blockIds, int blockCount,
        Func<long> nextBlock, WorkerRecorder recorder, CancellationToken ct)
    {
        bool allOk = true;
        for (long i = nextBlock(); i < blockCount; i = nextBlock())
        {
            int size = (int)Math.Min(plan.BlockSizeBytes, plan.BlobSizeBytes - i * plan.BlockSizeBytes);
            using var content = new MemoryStream(block, 0, size, writable: false);
            long start = Stopwatch.GetTimestamp();
            Outcome outcome;
            try
            {
                await blob.StageBlockAsync(blockIds[i], content, cancellationToken: ct).ConfigureAwait(false);
                outcome = Outcome.Succeeded;
            }
            catch (Exception ex) when (OutcomeClassifier.Classify(ex, ct) is { } failed)
            {
                outcome = failed;
                allOk = false;
            }
            recorder.Record(outcome, start, size);
        }
        return allOk;
    }

    private static async Task<bool> CommitAsync(BlockBlobClient blob, string[] blockIds, int blockCount, WorkerRecorder recorder, CancellationToken ct)
    {
        long start = Stopwatch.GetTimestamp();
        Outcome outcome;
        try
        {
            await blob.CommitBlockListAsync(new ArraySegment<string>(blockIds, 0, blockCount), cancellationToken: ct).ConfigureAwait(false);
            outcome = Outcome.Succeeded;
        }
        catch (Exception ex) when (OutcomeClassifier.Classify(ex, ct) is { } failed)
        {
            outcome = failed;
        }
        recorder.Record(outcome, start, 0);
        return outcome == Outcome.Succeeded;
    }
}
