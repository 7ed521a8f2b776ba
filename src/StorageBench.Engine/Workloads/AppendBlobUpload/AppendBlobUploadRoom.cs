
namespace StorageBench.Engine.Workloads.AppendBlobUpload;

/// <summary>
/// The append blob upload's room: each blob created empty, then grown by Append Block, one append in flight per blob and
/// parallelBlobs blobs at once per slice, in the step's own container — its rules (the Append Block and block count limits),
/// its plan, its writes (<see cref="AppendBlobUploadSlice"/>), its ground truth (<see cref="AppendBlobGroundTruth"/>: length,
/// committed block count, MD5), its goodput in MB/s with latency per Append Block, and its request lines and plan.
/// </summary>
public sealed class AppendBlobUploadRoom : BlobWriteRoom<AppendBlobUploadSpec>
{
    public static AppendBlobUploadRoom Instance { get; } = new();

    /// <summary>The most bytes one Append Block carries at x-ms-version 2022-11-02 and later (4 MiB before); this tool sends 2026-10-06.</summary>
    public const int MaxAppendBytes = 100 * 1024 * 1024;

    public override WorkloadKind Kind { get; } = WorkloadKind.CountingBytes("appendBlobUpload", "AppendBlob") with
    {
        Done = "appended", PlannedUnit = "blobs", Request = "Append Block",
    };

    /// <summary>Its own container beside the other blob uploads'.</summary>
    public override string TargetSuffix => "a";

    public override WorkloadSpec? SectionOf(RunSpec spec) => spec.AppendBlobUpload;

    public override CapacityModel Capacity { get; } = new BlobCapacityModel(s => s.AppendBlobUpload!.Slices, s => s.AppendBlobUpload!.ParallelBlobs, PlanAppends,
        s => $"{s.AppendBlobUpload!.BlobSizeBytes:N0}-byte append blobs in {s.AppendBlobUpload.AppendSizeBytes:N0}-byte Append Blocks", "blobs in flight/slice", "blob write operations");

    protected override void ValidateParts(AppendBlobUploadSpec section, SpecChecks errors, string p)
    {
        int before = errors.Count;
        errors.Range(p + "appendSizeBytes", section.AppendSizeBytes, 1, MaxAppendBytes, "(the service's limit per Append Block at the x-ms-version this tool sends, 100 MiB)");
        errors.Range(p + "blobSizeBytes", section.BlobSizeBytes, 1, (double)ServiceLimits.MaxBlocksPerBlob * MaxAppendBytes);
        if (errors.Count == before)
        {
            WithinBlockLimit(section, errors, p, "appendSizeBytes", "append blob");
        }
        errors.Range(p + "parallelBlobs", section.ParallelBlobs, 1, 1_024);
    }

    protected override int PartBytesOf(AppendBlobUploadSpec section) => section.AppendSizeBytes;

    protected override Task<SliceResult> RunSliceAsync(BlobSlicePlan<AppendBlobUploadSpec> plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger) =>
        AppendBlobUploadSlice.RunAsync(plan, target, time, ct, live, logger);

    protected override Task<VerificationResult> VerifyAsync(VerifyBlobsInput order, IReadOnlyList<StorageTarget> targets, CancellationToken ct) =>
        AppendBlobGroundTruth.VerifyAsync(targets, order, ct);

    protected override WorkloadSummary Summarize(AppendBlobUploadSpec section, IReadOnlyList<SliceResult> slices, VerificationResult verified) =>
        SummarizeBlobs(
            $"operation = one Append Block (up to {section.AppendSizeBytes} B) or the Put Blob that creates an append blob; latency = successful Append Block requests; " +
            "throughput = bytes of append blobs whose every append landed per second (goodput); per-second figures = bytes appended by successful Append Blocks",
            section, slices, verified, failedBlobsHoldBytes: true);

    private protected override BlobWriteWords Words { get; } = new("Append Block", "Put Blob (append blob create)", "priming Put Blob (append blob create) and Append Block", "Get Blob Properties", "appends");

    protected override IEnumerable<(string Name, string Value)> Parameters(AppendBlobUploadSpec section) =>
    [
        ("blobSizeBytes", I(section.BlobSizeBytes)), ("appendSizeBytes", I(section.AppendSizeBytes)), ("parallelBlobs", I(section.ParallelBlobs)), ("slices", I(section.Slices)),
    ];

    /// <summary>Its plan: slices and accounts for MB/s of append blobs, each blob one append at a time.</summary>
    private static PlanOutcome PlanAppends(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        var a = op.Spec.AppendBlobUpload!;
        double appendMb = Math.Min(a.AppendSizeBytes, a.BlobSizeBytes) / 1e6, target = request.Target;
        // An Append Block per append, and one create per blob.
        double requestsPerHour = (target / appendMb + target * 1e6 / a.BlobSizeBytes) * 3600;
        return CapacityPlanner.PlanBlobs(Instance, sustained, op, request, targets, prices,
            new("append blob uploads", appendMb, $"{appendMb:0.###} MB appends", a.ParallelBlobs, a.ParallelBlobs, $"{a.ParallelBlobs} Append Blocks", requestsPerHour,
                prices.BlobWriteOperationsPer10k, target * 3600 / 1e3, 0),
            (slices, duration) => op.Spec with { AppendBlobUpload = CapacityPlanner.ForDuration(a, duration) with { Slices = slices, BlobCount = Math.Max(a.BlobCount, slices) } });
    }
}
