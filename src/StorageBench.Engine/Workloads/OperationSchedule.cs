using System.Diagnostics;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// Hands out operation indexes to a slice's worker loops and decides, for each, when it is due,
/// whether it is warm-up, and when the slice is done (fixed count or fixed duration). Thread-safe:
/// one Interlocked increment per operation.
/// </summary>
internal sealed class OperationSchedule
{
    private readonly long _maxOperations;
    private readonly long _endTimestamp;
    private readonly double _ticksPerOperation;
    private readonly long _startTimestamp;
    private readonly long _warmupOperations;
    private readonly long _warmupEndTimestamp;
    private readonly long _first;
    private long _next;
    private long _handedOut;

    /// <param name="maxOperations">Operations in count mode; ignored when the spec sets a duration.</param>
    /// <param name="operationsPerSecond">Open-loop rate for this slice; 0 = closed loop.</param>
    /// <param name="segment">
    /// A segment of a longer slice: <paramref name="startTimestamp"/> is then the slice's origin (slot 0, warm-up's start), the
    /// schedule ends at the segment's end and hands out indexes from its first operation on.
    /// </param>
    public OperationSchedule(WorkloadSpec spec, long maxOperations, double operationsPerSecond, long startTimestamp, SliceSegment? segment = null)
    {
        bool timed = spec.DurationSeconds > 0;
        _maxOperations = timed ? long.MaxValue : maxOperations;
        _endTimestamp = timed ? startTimestamp + Ticks(segment?.EndSeconds ?? spec.DurationSeconds) : long.MaxValue;
        _ticksPerOperation = operationsPerSecond > 0 ? Stopwatch.Frequency / operationsPerSecond : 0;
        _startTimestamp = startTimestamp;
        _warmupOperations = spec.WarmupOperations;
        _warmupEndTimestamp = startTimestamp + Ticks(spec.WarmupSeconds);
        _first = segment?.FirstOperation ?? 0;
        _next = _first - 1;
    }

    public bool IsOpenLoop => _ticksPerOperation > 0;

    /// <summary>
    /// The next operation, or false when the slice is done. <paramref name="due"/> is when it should
    /// start: its slot in the open-loop schedule, or now in a closed loop.
    /// </summary>
    public bool TryNext(out long index, out long due)
    {
        index = Interlocked.Increment(ref _next);
        long now = Stopwatch.GetTimestamp();
        due = IsOpenLoop ? _startTimestamp + (long)(index * _ticksPerOperation) : now;
        if (index < _maxOperations && due < _endTimestamp && now < _endTimestamp)
        {
            Interlocked.Increment(ref _handedOut);
            return true;
        }
        return false;
    }

    /// <summary>
    /// Open loop: the slots that were due before the slice stopped (its duration's end, or now when it stopped sooner) and never
    /// handed out, because every loop was still busy with an earlier one; 0 in a closed loop.
    /// </summary>
    public long Dropped()
    {
        if (!IsOpenLoop)
        {
            return 0;
        }
        long stopped = Math.Min(_endTimestamp, Stopwatch.GetTimestamp());
        return Math.Max(0, Math.Min(FirstSlotAtOrAfter(stopped), _maxOperations) - _first - Interlocked.Read(ref _handedOut));
    }

    /// <summary>Where the next segment goes on: the first slot at or after this one's end (open loop), else the next index not handed out.</summary>
    public long NextOperation()
    {
        long next = _first + Interlocked.Read(ref _handedOut);
        return IsOpenLoop ? Math.Max(next, FirstSlotAtOrAfter(_endTimestamp)) : next;
    }

    /// <summary>The first slot due at or after <paramref name="timestamp"/>, by the same rounding as TryNext's.</summary>
    private long FirstSlotAtOrAfter(long timestamp)
    {
        long due = Math.Max(0, (long)Math.Ceiling((timestamp - _startTimestamp) / _ticksPerOperation) - 1);
        while (_startTimestamp + (long)(due * _ticksPerOperation) < timestamp)
        {
            due++;
        }
        return due;
    }

    /// <summary>
    /// Waits until an open-loop operation is due (no wait when behind schedule or closed loop); false
    /// when the slice was stopped while waiting.
    /// </summary>
    public static async ValueTask<bool> WaitUntilAsync(long due, CancellationToken ct)
    {
        long ahead = due - Stopwatch.GetTimestamp();
        // Below a millisecond the timer cannot do better than sending now.
        if (ahead * 1000 / Stopwatch.Frequency < 1)
        {
            return !ct.IsCancellationRequested;
        }
        try
        {
            await Task.Delay(TimeSpan.FromSeconds((double)ahead / Stopwatch.Frequency), ct).ConfigureAwait(false);
            return true;
        }
        catch (OperationCanceledException) when (ct.IsCancellationRequested)
        {
            return false;
        }
    }

    /// <summary>True once a fixed-duration slice has run its time.</summary>
    public bool HasEnded() => Stopwatch.GetTimestamp() >= _endTimestamp;

    public bool IsWarmup(long index, long startTimestamp) => index < _warmupOperations || startTimestamp < _warmupEndTimestamp;

    private static long Ticks(double seconds) => (long)(seconds * Stopwatch.Frequency);
}
