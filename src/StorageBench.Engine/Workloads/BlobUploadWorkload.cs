using System.Diagnostics;
using System.Security.Cryptography;
using System.Text;
using Azure.Storage.Blobs.Specialized;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// Uploads one slice's blobs one after another; within a blob, ParallelBlocks Put Block requests are
/// in flight, then Put Block List commits them (as the seeds' storage client did). Every request is
/// counted; the latency histogram holds Put Block requests. A fixed-duration slice starts no new
/// blob once its time is up, so every blob it commits is whole. Blob names start with this
/// execution's attempt id (activities run at least once). Canceling <c>ct</c> stops the slice: no
/// new block is sent, a blob left incomplete is not committed, and requests in flight are counted.
/// </summary>
public static class BlobUploadWorkload
{
    public const string Name = "blobUpload";

    public static async Task<SliceResult> RunAsync(BlobSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct)
    {
        var spec = plan.Workload;
        using var clients = target.CreateClients(plan.Client);
        var container = clients.Blobs.GetBlobContainerClient(plan.ContainerName);
        int blockCount = BlockCount(spec.BlobSizeBytes, spec.BlockSizeBytes);
        // One buffer serves every block of every blob: the driver allocates no payload per request.
        var block = EntityPayload.RandomBytes((int)Math.Min(spec.BlockSizeBytes, spec.BlobSizeBytes));
        var blockIds = BlockIds(blockCount);
        string attempt = SliceResult.NewAttemptId();

        // Preflight, untimed and before the start barrier (see TableInsertWorkload); best effort.
        try
        {
            await container.GetPropertiesAsync().ConfigureAwait(false);
        }
        catch (Exception ex) when (OutcomeClassifier.Classify(ex, CancellationToken.None) is not null)
        {
        }

        var clock = await SliceClock.StartAtAsync(plan.StartAtUtc, time, ct).ConfigureAwait(false);
        double cpuAtStart = SliceResult.ProcessCpuSeconds();
        var schedule = new OperationSchedule(spec, long.MaxValue, 0, clock.StartTimestamp);
        var workers = new WorkerRecorder[Math.Min(spec.ParallelBlocks, blockCount)];
        for (int w = 0; w < workers.Length; w++)
        {
            workers[w] = clock.NewRecorder();
        }
        // Commits are counted but kept out of the Put Block latency histogram.
        var commits = clock.NewRecorder(recordLatency: false);
        long committed = 0;
        long operationIndex = -1;
        var loops = new Task<bool>[workers.Length];
        for (int n = 0; !ct.IsCancellationRequested && (spec.DurationSeconds > 0 ? !schedule.HasEnded() : n < plan.BlobCount); n++)
        {
            var blob = container.GetBlockBlobClient(BlobName(attempt, plan.SliceIndex, n));
            long nextBlock = -1;
            for (int w = 0; w < workers.Length; w++)
            {
                var recorder = workers[w];
                loops[w] = Task.Run(async () =>
                {
                    bool allOk = true;
                    for (long i = Interlocked.Increment(ref nextBlock); i < blockCount; i = Interlocked.Increment(ref nextBlock))
                    {
                        if (ct.IsCancellationRequested)
                        {
                            return false;
                        }
                        int size = (int)Math.Min(spec.BlockSizeBytes, spec.BlobSizeBytes - i * spec.BlockSizeBytes);
                        allOk &= await StageBlockAsync(blob, blockIds[i], block, size, schedule, Interlocked.Increment(ref operationIndex), recorder).ConfigureAwait(false);
                    }
                    return allOk;
                }, CancellationToken.None);
            }
            bool allStaged = (await Task.WhenAll(loops).ConfigureAwait(false)).All(ok => ok);
            if (allStaged && await CommitAsync(blob, blockIds, blockCount, schedule, commits).ConfigureAwait(false))
            {
                committed++;
            }
        }
        return SliceResult.FromWorkers(plan.StepId, attempt, Name, plan.SliceIndex, plan.TargetIndex, cpuAtStart, [.. workers, commits],
            objects: committed,
            contentMd5: spec.VerifyContent ? ContentMd5(block, spec.BlobSizeBytes, spec.BlockSizeBytes) : null) with
        {
            StartLagSeconds = clock.LagSeconds(plan.StartAtUtc),
            Canceled = ct.IsCancellationRequested,
        };
    }

    /// <summary>"attempt/sSSS-NNNNNNN": slices never collide, and each execution's blobs are its own.</summary>
    public static string BlobName(string attempt, int slice, int sequence) => $"{attempt}/s{slice:D3}-{sequence:D7}";

    /// <summary>The attempt id a blob name starts with ("" for a name this tool did not write).</summary>
    public static string AttemptOf(string blobName) => blobName.Length > 9 && blobName[8] == '/' ? blobName[..8] : "";

    public static int BlockCount(long blobSizeBytes, int blockSizeBytes) => (int)((blobSizeBytes + blockSizeBytes - 1) / blockSizeBytes);

    /// <summary>Block ids must be base64 of equal length within a blob; the same list serves every blob.</summary>
    private static string[] BlockIds(int count) =>
        [.. Enumerable.Range(0, count).Select(i => Convert.ToBase64String(Encoding.ASCII.GetBytes($"block-{i:D6}")))];

    private static async Task<bool> StageBlockAsync(BlockBlobClient blob, string blockId, byte[] block, int size, OperationSchedule schedule,
        long operationIndex, WorkerRecorder recorder)
    {
        using var content = new MemoryStream(block, 0, size, writable: false);
        long start = Stopwatch.GetTimestamp();
        Outcome outcome;
        try
        {
            await blob.StageBlockAsync(blockId, content).ConfigureAwait(false);
            outcome = Outcome.Succeeded;
        }
        catch (Exception ex) when (OutcomeClassifier.Classify(ex, CancellationToken.None) is { } failed)
        {
            outcome = failed;
        }
        recorder.Record(outcome, start, size, schedule.IsWarmup(operationIndex, start));
        return outcome == Outcome.Succeeded;
    }

    private static async Task<bool> CommitAsync(BlockBlobClient blob, string[] blockIds, int blockCount, OperationSchedule schedule,
        WorkerRecorder recorder)
    {
        long start = Stopwatch.GetTimestamp();
        Outcome outcome;
        try
        {
            await blob.CommitBlockListAsync(new ArraySegment<string>(blockIds, 0, blockCount)).ConfigureAwait(false);
            outcome = Outcome.Succeeded;
        }
        catch (Exception ex) when (OutcomeClassifier.Classify(ex, CancellationToken.None) is { } failed)
        {
            outcome = failed;
        }
        // warmupOperations counts Put Block requests; a commit is warm-up only by time.
        recorder.Record(outcome, start, 0, schedule.IsWarmup(long.MaxValue, start));
        return outcome == Outcome.Succeeded;
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
