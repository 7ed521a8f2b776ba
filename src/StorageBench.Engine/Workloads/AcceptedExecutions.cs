using System.Globalization;

namespace StorageBench.Engine.Workloads;

/// <summary>A workload section cut into slices (every one is).</summary>
public interface ISlicedSection
{
    int Slices { get; }
}

/// <summary>
/// Every accepted execution of a step's slices (one a slice, or one a segment when a slice runs as segments) is named, by its
/// attempt id, in what crosses the orchestration after the slices: a writing workload's verification order (with each
/// execution's content MD5 when blobs are read back) and the step's list of accepted slice rows. Those are control payloads
/// (32 KiB), so a step whose names cannot fit beside the rest of them is refused before it starts, not after a day of
/// running: a long run takes longer segments or fewer slices.
/// </summary>
public static class AcceptedExecutions
{
    /// <summary>One attempt id in a payload's JSON: 8 characters, its quotes and a comma.</summary>
    public const int NameBytes = 11;

    /// <summary>An attempt id, and again as the key of its blobs' content MD5: "id":"24 base64 characters", and a comma.</summary>
    public const int NameAndContentBytes = NameBytes + 38;

    /// <summary>What a step's names may take of a 32-KiB control payload: the rest of the payload keeps 8 KiB.</summary>
    public const int BudgetBytes = 24 * 1024;

    /// <summary>Executions a workload's slices run in the step: one a slice, or one a segment.</summary>
    public static long Of(WorkloadSpec section, RunSpec spec) =>
        (long)((ISlicedSection)section).Slices * (SegmentPlan.For(section, spec)?.Count ?? 1);

    /// <summary>Bytes the step's names take in the payload that names them all.</summary>
    public static long BytesOf(RunSpec spec) => WorkloadList.In(spec).Sum(w => Of(w.Section, spec) * BytesOfOne(w.Section));

    private static int BytesOfOne(WorkloadSpec section) => section is BlobWriteSpec { VerifyContent: true } ? NameAndContentBytes : NameBytes;

    /// <summary>The spec, its segments made as long as its names need to fit (the capacity planner writes specs that run).</summary>
    public static RunSpec Fitted(RunSpec spec)
    {
        if (Refusal(spec) is null)
        {
            return spec;
        }
        var step = SpecVariants.Steps(spec).MaxBy(BytesOf)!;
        long perSegment = WorkloadList.In(step).Sum(w => ((ISlicedSection)w.Section).Slices * (long)BytesOfOne(w.Section));
        long segments = Math.Max(1, BudgetBytes / perSegment);
        return spec with { SegmentSeconds = Math.Ceiling(WorkloadList.In(step).Max(w => w.Section.DurationSeconds) / segments) };
    }

    /// <summary>The refusal when the spec, or the largest step of its sweep or search, names more than fits; null when every step fits.</summary>
    public static ValidationError? Refusal(RunSpec spec)
    {
        var step = SpecVariants.Steps(spec).MaxBy(BytesOf)!;
        long bytes = BytesOf(step);
        if (bytes <= BudgetBytes)
        {
            return null;
        }
        string parts = string.Join(" + ", WorkloadList.In(step).Select(w =>
            $"{w.Room.Name} {((ISlicedSection)w.Section).Slices:N0} slices × {SegmentPlan.For(w.Section, step)?.Count ?? 1:N0} segments"));
        return new ValidationError("segmentSeconds", (step.SegmentSeconds ?? RunSpec.DefaultSegmentSeconds).ToString("0.###", CultureInfo.InvariantCulture),
            $"cuts the step into {WorkloadList.In(step).Sum(w => Of(w.Section, step)):N0} slice executions ({parts}), whose attempt ids take {bytes:N0} bytes " +
            $"of the {BudgetBytes:N0} the step's verification may carry: use longer segments (up to a slice's duration) or fewer slices");
    }
}
