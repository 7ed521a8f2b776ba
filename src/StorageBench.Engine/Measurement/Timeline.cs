namespace StorageBench.Engine.Measurement;

/// <summary>Successful work in one bucket of UTC seconds (bucket = Unix seconds at its start). Units are entities or bytes.</summary>
public sealed record TimelinePoint(long UnixSecond, long Operations, long Units);

/// <summary>
/// Successful operations and units per bucket of UTC seconds. Buckets are <see cref="BucketSeconds"/>
/// wide (a power of two) and start at a multiple of their width, so timelines from different slices
/// and machines add up exactly. A timeline that outgrows its bucket budget doubles its bucket width
/// instead of growing: its size never depends on the run's length.
/// </summary>
public sealed record Timeline(long StartUnixSecond, int BucketSeconds, long[] Operations, long[] Units)
{
    public static readonly Timeline Empty = new(0, 1, [], []);

    public int Count => Operations.Length;

    public IEnumerable<TimelinePoint> Points()
    {
        for (int i = 0; i < Count; i++)
        {
            yield return new TimelinePoint(StartUnixSecond + (long)i * BucketSeconds, Operations[i], Units[i]);
        }
    }

    /// <summary>The same counts in buckets of <paramref name="bucketSeconds"/> (a power of two, at least the current width).</summary>
    public Timeline Coarsen(int bucketSeconds)
    {
        if (bucketSeconds == BucketSeconds || Count == 0)
        {
            return Count == 0 ? this with { BucketSeconds = bucketSeconds } : this;
        }
        long start = AlignDown(StartUnixSecond, bucketSeconds);
        long end = StartUnixSecond + (long)Count * BucketSeconds;
        int buckets = (int)((end - start + bucketSeconds - 1) / bucketSeconds);
        var ops = new long[buckets];
        var units = new long[buckets];
        for (int i = 0; i < Count; i++)
        {
            int b = (int)((StartUnixSecond + (long)i * BucketSeconds - start) / bucketSeconds);
            ops[b] += Operations[i];
            units[b] += Units[i];
        }
        return new Timeline(start, bucketSeconds, ops, units);
    }

    /// <summary>This timeline with its bucket width doubled until it has at most <paramref name="maxBuckets"/> buckets.</summary>
    public Timeline Fit(int maxBuckets)
    {
        int width = BucketSeconds;
        while (Span(width) > maxBuckets)
        {
            width *= 2;
        }
        return Coarsen(width);
    }

    /// <summary>Adds timelines bucket by bucket, at the widest bucket width among them; every bucket from the first to the last is present.</summary>
    public static Timeline Merge(IEnumerable<Timeline> timelines)
    {
        var parts = timelines.Where(t => t.Count > 0).ToList();
        if (parts.Count == 0)
        {
            return Empty;
        }
        int width = parts.Max(t => t.BucketSeconds);
        parts = [.. parts.Select(t => t.Coarsen(width))];
        long start = parts.Min(t => t.StartUnixSecond);
        long end = parts.Max(t => t.StartUnixSecond + (long)t.Count * width);
        int buckets = (int)((end - start) / width);
        var ops = new long[buckets];
        var units = new long[buckets];
        foreach (var t in parts)
        {
            int offset = (int)((t.StartUnixSecond - start) / width);
            for (int i = 0; i < t.Count; i++)
            {
                ops[offset + i] += t.Operations[i];
                units[offset + i] += t.Units[i];
            }
        }
        return new Timeline(start, width, ops, units);
    }

    private long Span(int width) =>
        Count == 0 ? 0 : (StartUnixSecond + (long)Count * BucketSeconds - AlignDown(StartUnixSecond, width) + width - 1) / width;

    internal static long AlignDown(long second, int width) => second - (((second % width) + width) % width);
}

/// <summary>
/// A worker's timeline while it records: a fixed array of buckets whose width doubles when the run
/// outgrows it, so recording never allocates and memory does not grow with run length.
/// </summary>
internal sealed class TimelineBuckets(long firstUnixSecond, int capacity = TimelineBuckets.DefaultCapacity)
{
    public const int DefaultCapacity = 2048;
    private readonly long[] _operations = new long[capacity];
    private readonly long[] _units = new long[capacity];
    private long _start = firstUnixSecond;
    private int _width = 1;
    private int _used;

    public void Add(long unixSecond, long operations, long units)
    {
        long index = (unixSecond - _start) / _width;
        if (unixSecond < _start)
        {
            // Never expected (records end after the slice's anchor); counted in the first bucket rather than lost.
            index = 0;
        }
        while (index >= _operations.Length)
        {
            Widen();
            index = (unixSecond - _start) / _width;
        }
        _operations[index] += operations;
        _units[index] += units;
        _used = Math.Max(_used, (int)index + 1);
    }

    public Timeline ToTimeline() => _used == 0 ? Timeline.Empty : new Timeline(_start, _width, _operations[.._used], _units[.._used]);

    private void Widen()
    {
        int width = _width * 2;
        long start = Timeline.AlignDown(_start, width);
        var ops = new long[_operations.Length];
        var units = new long[_units.Length];
        for (int i = 0; i < _used; i++)
        {
            int b = (int)((_start + (long)i * _width - start) / width);
            ops[b] += _operations[i];
            units[b] += _units[i];
        }
        ops.CopyTo(_operations, 0);
        units.CopyTo(_units, 0);
        _used = (int)((_start + (long)_used * _width - start + width - 1) / width);
        _start = start;
        _width = width;
    }
}
