
namespace StorageBench.Engine.Workloads;

/// <summary>
/// How a timed slice longer than the spec's segmentSeconds is cut: <see cref="Count"/> segments of <see cref="Seconds"/>
/// (the last one shorter), each its own activity, so a host that stops loses one segment, not the slice.
/// </summary>
public sealed record SegmentPlan(int Count, double Seconds, double DurationSeconds)
{
    /// <summary>The slice's segments, or null when it runs whole as one activity (a fixed count, or no longer than one segment).</summary>
    public static SegmentPlan? For(WorkloadSpec section, RunSpec spec)
    {
        double seconds = spec.SegmentSeconds ?? RunSpec.DefaultSegmentSeconds;
        return section.DurationSeconds > seconds
            ? new SegmentPlan((int)Math.Ceiling(section.DurationSeconds / seconds), seconds, section.DurationSeconds)
            : null;
    }

    /// <summary>Segment <paramref name="index"/>, going on from where the one before it stopped (null for the first).</summary>
    public SliceSegment Segment(int index, SegmentContinuation? after) =>
        new(index, Count, index * Seconds, Math.Min((index + 1) * Seconds, DurationSeconds), after?.OriginUtc, after?.NextOperation ?? 0);
}

/// <summary>
/// One segment of a timed slice: its window in seconds from the slice's schedule origin, and where in the schedule it starts.
/// The first one sets the origin (when the slice passed its start instant); the others keep it, so every open-loop slot
/// keeps its time and its latency still runs from the slot, and warm-up (by time and by operation index) falls in the first.
/// </summary>
/// <param name="OriginUtc">Null for the first segment: its own start is the origin.</param>
/// <param name="FirstOperation">The schedule's next operation index: the row key or blob number it writes next.</param>
public sealed record SliceSegment(int Index, int Count, double StartSeconds, double EndSeconds, DateTime? OriginUtc, long FirstOperation)
{
    private static readonly AsyncLocal<SliceSegment?> Running = new();

    public bool IsLast => Index == Count - 1;

    /// <summary>What the segments before this one measured: its live progress goes on from there, not from zero.</summary>
    public LiveCounts Before { get; init; }

    /// <summary>
    /// The most a later segment may start after its window's start and still keep its slots' times (its first slots then go
    /// out late, and their latency says so): more than the hand-over between two segments, less than any lost segment's re-run.
    /// </summary>
    public const double MaxLateSeconds = 5;

    /// <summary>
    /// Seconds a segment that started <see cref="MaxLateSeconds"/> or more late (its earlier execution was lost, or the run was
    /// resumed) moves its window and the rest of the slice's schedule: that pause is no load, so it is left out of the run's
    /// duration; 0 when it started in time.
    /// </summary>
    public static double PauseOf(DateTime windowStartUtc, DateTime startedUtc) =>
        (startedUtc - windowStartUtc).TotalSeconds is var late && late > MaxLateSeconds ? late : 0;

    /// <summary>How a segment that paused the slice says so (the step groups its slices' notes by what comes before the colon).</summary>
    public static string PausedNote(SliceSegment segment, double paused) =>
        $"paused: segment {segment.Index + 1} of {segment.Count} started {paused:0.#} s after its window (an earlier execution was lost, or the run was " +
        "resumed); the slice's schedule goes on from there, and the pause is not in the run's duration";

    /// <summary>
    /// The segment the slice loop runs now: set by the activity around the room's slice, so no room carries it (the schedule
    /// is the engine's, not the room's); null when a slice runs whole.
    /// </summary>
    public static SliceSegment? Current => Running.Value;

    /// <summary>Runs <paramref name="slice"/> as <paramref name="segment"/> (null: whole); the value flows to its tasks and ends with it.</summary>
    public static async Task<T> RunAsync<T>(SliceSegment? segment, Func<Task<T>> slice)
    {
        Running.Value = segment;
        return await slice().ConfigureAwait(false);
    }
}

/// <summary>What a segment hands the next one: the schedule's origin and the next operation index.</summary>
public sealed record SegmentContinuation(DateTime OriginUtc, long NextOperation);
