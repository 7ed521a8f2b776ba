using System.Diagnostics;
using System.Security.Cryptography;
using Azure;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Models;
using HdrHistogram;
using Microsoft.Extensions.Logging;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads.Lean;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// One slice's downloads: the blobs seeded on its account, round-robin from its own first one, each whole or in ranges;
/// parallelRanges loops take the next range (or the next whole blob) as they finish one, so a blob's ranges go out together
/// and the next blob's start as the last ones of the previous finish. A fixed-count slice downloads its share of
/// downloadCount; a fixed-duration one starts no new blob once its time is up (every blob it counts is whole). Canceling
/// <c>ct</c> stops it: no new range is sent, and requests in flight finish and are counted.
/// </summary>
internal static class BlobDownloadSlice
{
    /// <summary>The buffer each loop reads a body into, at most (a body is read in chunks: no buffer per blob or range).</summary>
    private const int MaxBufferBytes = 1 << 20;

    public static async Task<SliceResult> RunAsync(BlobDownloadSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger)
    {
        var spec = plan.Workload;
        using var clients = target.CreateClients(plan.Client);
        var container = clients.Blobs.GetBlobContainerClient(plan.ContainerName);
        int[] blobs = BlobDownloadRoom.BlobsOn(plan.TargetIndex, spec.BlobCount, spec.Slices, plan.TargetAccounts);
        long ranges = BlobDownloadRoom.RangesPerBlob(spec);
        var seed = new SeedContent(spec.BlobSizeBytes);
        // Before the start: the seed's MD5s the downloads are checked against (a blob's, or each distinct range's).
        var expected = spec.VerifyContent ? ExpectedContent.Of(seed, spec) : null;
        int loops = spec.DurationSeconds > 0 ? spec.ParallelRanges : (int)Math.Min(spec.ParallelRanges, plan.Downloads * ranges);
        string attempt = SliceResult.NewAttemptId();

        // Null on the SDK driver (client.driver "sdk"): then BlobClient.DownloadStreamingAsync sends every request.
        using var lean = plan.Client.Driver == ClientSettings.SdkDriver ? null : new LeanBlobDownloads(clients.Lean, clients.BlobWire, plan.ContainerName, loops);
        IBlobGets gets = lean is null
            ? new SdkGets([.. Enumerable.Range(0, spec.BlobCount).Select(b => container.GetBlobClient(BlobDownloadRoom.SeedBlobName(b)))])
            : new LeanGets(lean, [.. Enumerable.Range(0, spec.BlobCount).Select(b => lean.Blob(BlobDownloadRoom.SeedBlobName(b)))]);
        var buffers = Enumerable.Range(0, loops).Select(_ => new byte[(int)Math.Min(MaxBufferBytes, spec.RangeSizeBytes > 0 ? spec.RangeSizeBytes : spec.BlobSizeBytes)]).ToArray();
        var priming = await PrimeAsync(container, plan, gets, blobs[0], buffers, time, logger).ConfigureAwait(false);

        var clock = await SliceClock.StartAtAsync(plan.StartAtUtc, time, ct).ConfigureAwait(false);
        double cpuAtStart = SliceResult.ProcessCpuSeconds();
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var breaker = new UnreachableBreaker(loops, stop, clients.Blobs.Uri);
        var schedule = new OperationSchedule(spec, long.MaxValue, 0, clock.StartTimestamp);
        var queue = new DownloadQueue(plan, blobs, ranges, schedule, stop.Token);
        var workers = new WorkerRecorder[loops];
        var firstBytes = new LongHistogram[loops];
        var tasks = new Task[loops];
        for (int w = 0; w < loops; w++)
        {
            int worker = w;
            workers[w] = clock.NewRecorder();
            firstBytes[w] = LatencyHistograms.Create();
            tasks[w] = Task.Run(() => LoopAsync(worker, spec, gets, queue, schedule, workers[worker], firstBytes[worker], buffers[worker], expected, breaker, stop.Token),
                CancellationToken.None);
        }
        live?.Watch(workers);
        await Task.WhenAll(tasks).ConfigureAwait(false);

        var firstByte = LatencyHistograms.Create();
        foreach (var h in firstBytes)
        {
            firstByte.Add(h);
        }
        return SliceResult.FromWorkers(plan.StepId, attempt, BlobDownloadRoom.WorkloadName, plan.SliceIndex, plan.TargetIndex, cpuAtStart, workers,
            objects: queue.Downloaded, requests: priming with { Wire = clients.BlobWire.Sent }) with
        {
            StartLagSeconds = clock.LagSeconds(plan.StartAtUtc),
            Canceled = ct.IsCancellationRequested,
            StopReason = breaker.Reason,
            Planned = spec.DurationSeconds > 0 ? queue.Started : plan.Downloads,
            CommittedUnits = queue.GoodBytes,
            ObjectsFailed = queue.Started - queue.Downloaded,
            FailedObjectUnits = queue.FailedBytes,
            WrongDownloads = queue.Wrong,
            FirstByteHistogram = LatencyHistograms.Encode(firstByte),
        };
    }

    private static async Task LoopAsync(int worker, BlobDownloadSpec spec, IBlobGets gets, DownloadQueue queue, OperationSchedule schedule, WorkerRecorder recorder,
        LongHistogram firstBytes, byte[] buffer, ExpectedContent? expected, UnreachableBreaker breaker, CancellationToken ct)
    {
        using var md5 = expected is null ? null : IncrementalHash.CreateHash(HashAlgorithmName.MD5);
        Action<byte[], int>? received = md5 is null ? null : (bytes, n) => md5.AppendData(bytes, 0, n);
        byte[] hash = new byte[16];
        while (!ct.IsCancellationRequested && queue.TryNext(out var blob, out long range))
        {
            long offset = range * spec.RangeSizeBytes;
            long length = spec.RangeSizeBytes > 0 ? Math.Min(spec.RangeSizeBytes, spec.BlobSizeBytes - offset) : 0;
            long wanted = length > 0 ? length : spec.BlobSizeBytes;
            long index = queue.NextOperation();
            long start = Stopwatch.GetTimestamp();
            Outcome outcome;
            Download answer = default;
            try
            {
                // Not canceled with the slice: a request in flight finishes (or times out) and is counted.
                answer = await gets.GetAsync(worker, blob.Blob, offset, length, buffer, received).ConfigureAwait(false);
                outcome = Outcome.Succeeded;
            }
            catch (Exception ex) when (OutcomeClassifier.Classify(ex, CancellationToken.None) is { } failed)
            {
                outcome = failed;
            }
            bool warmup = schedule.IsWarmup(index, start);
            bool succeeded = outcome == Outcome.Succeeded;
            recorder.Record(outcome, start, succeeded ? answer.Bytes : wanted, warmup);
            breaker.Observe(outcome);
            bool right = false;
            if (succeeded)
            {
                if (!warmup)
                {
                    firstBytes.RecordValue(Micros(answer.FirstByteTimestamp - start));
                }
                right = answer.Bytes == wanted;
                if (md5 is not null)
                {
                    md5.GetHashAndReset(hash);
                    right &= hash.AsSpan().SequenceEqual(expected!.Md5(offset, wanted));
                }
            }
            else
            {
                md5?.GetHashAndReset(hash);
            }
            queue.Done(blob, succeeded, right, warmup, succeeded ? answer.Bytes : 0);
        }
    }

    /// <summary>Stopwatch ticks in µs, rounded up (as <see cref="WorkerRecorder"/> does): a sample is never shorter than the wait.</summary>
    private static long Micros(long ticks) => Math.Clamp((long)Math.Ceiling(ticks * 1e6 / Stopwatch.Frequency), 1, LatencyHistograms.HighestTrackableMicros);

    /// <summary>
    /// Untimed, before the start barrier: a probe (Get Container Properties), then on every loop (up to 16) <c>client.primeRounds</c>
    /// Get Blobs of the first 4 KiB of a seeded blob through the measured driver: its code path and connections warm, nothing
    /// written. Stops when the start instant comes near. Returns what it sent, for the cost estimate.
    /// </summary>
    private static async Task<SliceRequests> PrimeAsync(BlobContainerClient container, BlobDownloadSlicePlan plan, IBlobGets gets, int blob, byte[][] buffers,
        TimeProvider time, ILogger? logger)
    {
        var tally = new PrimingTally(logger, plan.SliceIndex);
        await tally.Quietly(container.GetPropertiesAsync()).ConfigureAwait(false);
        long length = Math.Min(Priming.BlobBytes, plan.Workload.BlobSizeBytes);
        int[] rounds = await Task.WhenAll(Enumerable.Range(0, plan.Client.PrimeRounds > 0 ? Math.Min(buffers.Length, Priming.MaxLoops) : 0).Select(loop => Task.Run(async () =>
        {
            int round = 0;
            var lastRound = TimeSpan.Zero;
            for (; round < plan.Client.PrimeRounds && Priming.HasTime(plan.StartAtUtc, time, lastRound); round++)
            {
                long began = time.GetTimestamp();
                await tally.Quietly(gets.GetAsync(loop, blob, 0, length, buffers[loop], null)).ConfigureAwait(false);
                lastRound = time.GetElapsedTime(began);
            }
            return round;
        }))).ConfigureAwait(false);
        return tally.AddTo(new SliceRequests { PrimingProbes = 1, PrimingReads = rounds.Sum() });
    }

    /// <summary>Sends one Get Blob on the chosen driver and reads its body to the end.</summary>
    private interface IBlobGets
    {
        /// <param name="length">0: the whole blob; else the range [offset, offset + length).</param>
        Task<Download> GetAsync(int worker, int blob, long offset, long length, byte[] buffer, Action<byte[], int>? received);
    }

    private sealed class LeanGets(LeanBlobDownloads lean, LeanBlob[] blobs) : IBlobGets
    {
        public Task<Download> GetAsync(int worker, int blob, long offset, long length, byte[] buffer, Action<byte[], int>? received) =>
            lean.GetAsync(worker, blobs[blob], offset, length, buffer, received);
    }

    private sealed class SdkGets(BlobClient[] blobs) : IBlobGets
    {
        public async Task<Download> GetAsync(int worker, int blob, long offset, long length, byte[] buffer, Action<byte[], int>? received)
        {
            var options = length > 0 ? new BlobDownloadOptions { Range = new HttpRange(offset, length) } : null;
            using var result = (await blobs[blob].DownloadStreamingAsync(options).ConfigureAwait(false)).Value;
            long firstByte = Stopwatch.GetTimestamp();
            long bytes = 0;
            for (int n; (n = await result.Content.ReadAsync(buffer).ConfigureAwait(false)) > 0;)
            {
                received?.Invoke(buffer, n);
                bytes += n;
            }
            return new Download(firstByte, bytes);
        }
    }

    /// <summary>A blob being downloaded: its ranges still out, and whether any failed, came back wrong, or was warm-up.</summary>
    private sealed class BlobInFlight(int blob, long ranges)
    {
        public int Blob { get; } = blob;
        public long Remaining = ranges;
        public long Received;
        public int Failed;
        public int Wrong;
        public int Warmup;
    }

    /// <summary>Hands out (blob, range) pairs to the loops, and counts each blob as whole, failed or wrong once its last range is back. Thread-safe.</summary>
    private sealed class DownloadQueue(BlobDownloadSlicePlan plan, int[] blobs, long ranges, OperationSchedule schedule, CancellationToken ct)
    {
        private readonly Lock _lock = new();
        private BlobInFlight? _current;
        private long _nextRange;
        private bool _done;
        private long _operations = -1;
        private long _started, _downloaded, _goodBytes, _failedBytes, _wrong;

        public long Started => Interlocked.Read(ref _started);
        public long Downloaded => Interlocked.Read(ref _downloaded);
        public long GoodBytes => Interlocked.Read(ref _goodBytes);
        public long FailedBytes => Interlocked.Read(ref _failedBytes);
        public long Wrong => Interlocked.Read(ref _wrong);

        public long NextOperation() => Interlocked.Increment(ref _operations);

        public bool TryNext(out BlobInFlight blob, out long range)
        {
            lock (_lock)
            {
                if (_current is null || _nextRange == ranges)
                {
                    bool more = plan.Workload.DurationSeconds > 0 ? !schedule.HasEnded() : _started < plan.Downloads;
                    if (_done || !more || ct.IsCancellationRequested)
                    {
                        _done = true;
                        (blob, range) = (null!, 0);
                        return false;
                    }
                    // Round-robin over the account's blobs, each slice from its own first one.
                    _current = new BlobInFlight(blobs[(int)((plan.SliceIndex / plan.TargetAccounts + _started) % blobs.Length)], ranges);
                    _nextRange = 0;
                    Interlocked.Increment(ref _started);
                }
                (blob, range) = (_current, _nextRange++);
                return true;
            }
        }

        public void Done(BlobInFlight blob, bool succeeded, bool right, bool warmup, long bytes)
        {
            Interlocked.Add(ref blob.Received, bytes);
            if (!succeeded)
            {
                Interlocked.Exchange(ref blob.Failed, 1);
            }
            else if (!right)
            {
                Interlocked.Exchange(ref blob.Wrong, 1);
            }
            if (warmup)
            {
                Interlocked.Exchange(ref blob.Warmup, 1);
            }
            if (Interlocked.Decrement(ref blob.Remaining) > 0)
            {
                return;
            }
            if (blob.Failed == 0 && blob.Wrong == 0)
            {
                Interlocked.Increment(ref _downloaded);
                // Goodput counts the blobs of the measured window only.
                Interlocked.Add(ref _goodBytes, blob.Warmup == 0 ? plan.Workload.BlobSizeBytes : 0);
                return;
            }
            Interlocked.Add(ref _wrong, blob.Wrong);
            Interlocked.Add(ref _failedBytes, blob.Received);
        }
    }

    /// <summary>The seed's MD5s a download is checked against: the whole blob's, or each distinct range's (ranges of one phase in the pattern and one length hold the same bytes).</summary>
    private sealed class ExpectedContent
    {
        private readonly SeedContent _seed;
        private readonly Dictionary<(int Phase, long Length), byte[]> _md5 = [];

        private ExpectedContent(SeedContent seed) => _seed = seed;

        public static ExpectedContent Of(SeedContent seed, BlobDownloadSpec spec)
        {
            var expected = new ExpectedContent(seed);
            long step = spec.RangeSizeBytes > 0 ? spec.RangeSizeBytes : spec.BlobSizeBytes;
            for (long offset = 0; offset < spec.BlobSizeBytes; offset += step)
            {
                long length = Math.Min(step, spec.BlobSizeBytes - offset);
                if (!expected._md5.ContainsKey((seed.PhaseOf(offset), length)))
                {
                    expected._md5[(seed.PhaseOf(offset), length)] = seed.Md5(offset, length);
                }
            }
            return expected;
        }

        public byte[] Md5(long offset, long length) => _md5[(_seed.PhaseOf(offset), length)];
    }
}
