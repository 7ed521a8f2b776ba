
namespace StorageBench.Engine.Workloads.BlobDownload;

/// <summary>How a slice's downloads are handed out and judged: the blobs in flight, the queue of (blob, range) pairs, and the seed's MD5s.</summary>
internal static partial class BlobDownloadSlice
{
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
    private sealed class DownloadQueue(BlobDownloadSlicePlan plan, int[] blobs, long ranges, SliceWindow window)
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
                    bool more = plan.Workload.DurationSeconds > 0 ? !window.HasEnded() : _started < plan.Downloads;
                    if (_done || !more || window.Stopping.IsCancellationRequested)
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
