using System.Diagnostics;
using System.Security.Cryptography;
using Azure;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Models;
using HdrHistogram;

namespace StorageBench.Engine.Workloads.BlobDownload;

/// <summary>
/// One slice's downloads: the blobs seeded on its account, round-robin from its own first one, each whole or in ranges;
/// parallelRanges loops take the next range (or the next whole blob) as they finish one, so a blob's ranges go out together
/// and the next blob's start as the last ones of the previous finish. A fixed-count slice downloads its share of
/// downloadCount; a fixed-duration one starts no new blob once its time is up (every blob it counts is whole). Canceling
/// <c>ct</c> stops it: no new range is sent, and requests in flight finish and are counted.
/// </summary>
internal static partial class BlobDownloadSlice
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
        
        using var lean = plan.Client.LeanOrNull(() => new LeanBlobDownloads(clients.Lean, clients.BlobWire, plan.ContainerName, loops));
        IBlobGets gets = lean is null
            ? new SdkGets([.. Enumerable.Range(0, spec.BlobCount).Select(b => container.GetBlobClient(BlobDownloadRoom.SeedBlobName(b)))])
            : new LeanGets(lean, [.. Enumerable.Range(0, spec.BlobCount).Select(b => lean.Blob(BlobDownloadRoom.SeedBlobName(b)))]);
        var work = new Downloads(plan, gets, blobs, ranges, expected, loops);
        var priming = await PrimeAsync(container, plan, gets, blobs[0], work.Buffers, time, logger).ConfigureAwait(false);
        return await SliceLoop.RunAsync(new SliceStart(plan.StepId, BlobDownloadRoom.WorkloadName, plan.SliceIndex, plan.TargetIndex, plan.StartAtUtc, spec, clients.Blobs.Uri),
            work, priming, () => clients.BlobWire.Sent, time, ct, live).ConfigureAwait(false);
    }

    /// <summary>A loop's buffer, its MD5 of what it receives, its time-to-first-byte histogram, and the range it is to get next.</summary>
    private sealed class DownloadLoop(int index, byte[] buffer, bool hashed) : IDisposable
    {
        public int Index { get; } = index;
        public byte[] Buffer { get; } = buffer;
        public IncrementalHash? Md5 { get; } = hashed ? IncrementalHash.CreateHash(HashAlgorithmName.MD5) : null;
        public LongHistogram FirstBytes { get; } = LatencyHistograms.Create();
        public BlobInFlight? Blob;
        public long Range;

        public void Dispose() => Md5?.Dispose();
    }

    /// <summary>One operation: one Get Blob of a whole blob or of its next range, read to the end and checked.</summary>
    private sealed class Downloads(BlobDownloadSlicePlan plan, IBlobGets gets, int[] blobs, long ranges, ExpectedContent? expected, int loops) : SliceWork<DownloadLoop>
    {
        private readonly List<DownloadLoop> _loops = [];
        private DownloadQueue? _queue;

        public byte[][] Buffers { get; } = [.. Enumerable.Range(0, loops).Select(_ => new byte[(int)Math.Min(MaxBufferBytes,
            plan.Workload.RangeSizeBytes > 0 ? plan.Workload.RangeSizeBytes : plan.Workload.BlobSizeBytes)])];

        public override int Loops => loops;

        public override DownloadLoop NewLoop(int index)
        {
            var state = new DownloadLoop(index, Buffers[index], expected is not null);
            lock (_loops)
            {
                _loops.Add(state);
            }
            return state;
        }

        public override bool TryNext(DownloadLoop state, SliceWindow window, out long index, out long due)
        {
            var queue = LazyInitializer.EnsureInitialized(ref _queue, () => new DownloadQueue(plan, blobs, ranges, window));
            (index, due) = (0, System.Diagnostics.Stopwatch.GetTimestamp());
            if (!queue.TryNext(out var blob, out state.Range))
            {
                return false;
            }
            state.Blob = blob;
            index = queue.NextOperation();
            return true;
        }

        public override async Task SendAsync(DownloadLoop state, Operation op)
        {
            var spec = plan.Workload;
            long offset = state.Range * spec.RangeSizeBytes;
            long length = spec.RangeSizeBytes > 0 ? Math.Min(spec.RangeSizeBytes, spec.BlobSizeBytes - offset) : 0;
            long wanted = length > 0 ? length : spec.BlobSizeBytes;
            var md5 = state.Md5;
            var sent = await Lane.SendAsync(() => gets.GetAsync(state.Index, state.Blob!.Blob, offset, length, state.Buffer,
                md5 is null ? null : (bytes, n) => md5.AppendData(bytes, 0, n))).ConfigureAwait(false);
            bool warmup = op.Lane.IsWarmup(op.Index, sent.Start);
            op.Lane.Record(sent, sent.Succeeded ? sent.Answer.Bytes : wanted, op.Index);
            bool right = false;
            Span<byte> hash = stackalloc byte[16];
            if (sent.Succeeded)
            {
                if (!warmup)
                {
                    state.FirstBytes.RecordValue(Micros(sent.Answer.FirstByteTimestamp - sent.Start));
                }
                right = sent.Answer.Bytes == wanted;
                if (md5 is not null)
                {
                    md5.GetHashAndReset(hash);
                    right &= hash.SequenceEqual(expected!.Md5(offset, wanted));
                }
            }
            else
            {
                md5?.GetHashAndReset(hash);
            }
            _queue!.Done(state.Blob!, sent.Succeeded, right, warmup, sent.Succeeded ? sent.Answer.Bytes : 0);
        }

        public override SliceResult Finish(SliceResult result, IReadOnlyList<WorkerRecorder> recorders)
        {
            var firstByte = LatencyHistograms.Create();
            foreach (var loop in _loops)
            {
                firstByte.Add(loop.FirstBytes);
            }
            var queue = _queue!;
            return result with
            {
                Objects = queue.Downloaded,
                Planned = plan.Workload.DurationSeconds > 0 ? queue.Started : plan.Downloads,
                CommittedUnits = queue.GoodBytes,
                ObjectsFailed = queue.Started - queue.Downloaded,
                FailedObjectUnits = queue.FailedBytes,
                WrongDownloads = queue.Wrong,
                FirstByteHistogram = LatencyHistograms.Encode(firstByte),
            };
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
}
