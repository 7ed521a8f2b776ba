
namespace StorageBench.Engine.Workloads.BlobUpload;

/// <summary>
/// The block blob upload's room: Put Block ×N in parallel then Put Block List, per blob, into the step's container — its
/// rules (block and blob limits), its plan (blobs shared out over slices), its loop (<see cref="BlobUploadSlice"/>),
/// its ground truth (committed blobs listed, lengths and optionally MD5 checked), its goodput in MB/s and its request lines.
/// </summary>
public sealed class BlobUploadRoom : BlobWriteRoom<BlobUploadSpec>
{
    public static BlobUploadRoom Instance { get; } = new();

    public override WorkloadKind Kind { get; } = WorkloadKind.CountingBytes("blobUpload", "Blob") with { PlannedUnit = "blobs", Done = "uploaded", Request = "Put Block" };

    public override WorkloadSpec? SectionOf(RunSpec spec) => spec.BlobUpload;

    public override CapacityModel Capacity { get; } = new BlobCapacityModel(s => s.BlobUpload!.Slices, s => s.BlobUpload!.ParallelBlocks,
        BlobUploadCapacity.Plan, s => $"{s.BlobUpload!.BlobSizeBytes:N0}-byte blobs in {s.BlobUpload.BlockSizeBytes:N0}-byte blocks", "blocks in flight/slice",
        "blob write operations");

    protected override int PartBytesOf(BlobUploadSpec section) => section.BlockSizeBytes;

    /// <param name="targetAccounts">Configured target accounts: slice i writes to account i mod this.</param>
    public static IReadOnlyList<BlobSlicePlan<BlobUploadSpec>> PlanSlices(string runId, string stepId, string containerName, BlobUploadSpec spec, ClientSettings client,
        DateTime startAtUtc, int targetAccounts = 1) =>
        Instance.Plan(new StepPlan(runId, stepId, containerName, startAtUtc, targetAccounts), spec, client);

    protected override Task<SliceResult> RunSliceAsync(BlobSlicePlan<BlobUploadSpec> plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger) =>
        BlobUploadSlice.RunAsync(plan, target, time, ct, live, logger);

    protected override Task<VerificationResult> VerifyAsync(VerifyBlobsInput order, IReadOnlyList<StorageTarget> targets, CancellationToken ct) =>
        BlobUploadGroundTruth.VerifyBlobsAsync(targets, order.ContainerName, order.AcceptedAttempts, order.ReportedBlobs, order.BlobSizeBytes, order.ContentMd5ByAttempt, ct);

    protected override WorkloadSummary Summarize(BlobUploadSpec section, IReadOnlyList<SliceResult> slices, VerificationResult verified) =>
        SummarizeSlices(section, slices, verified);

    /// <summary>
    /// Blob figures: throughput is goodput — bytes of committed blobs per second; a Put Block whose blob
    /// was never committed is work the run lost. Bytes staged per second stay available as block throughput.
    /// </summary>
    public static WorkloadSummary SummarizeSlices(BlobUploadSpec spec, IReadOnlyList<SliceResult> slices, VerificationResult verified) =>
        Instance.SummarizeBlobs(
            $"operation = one Put Block ({spec.BlockSizeBytes} B) or Put Block List, retries included; latency = successful Put Block requests; " +
            "throughput = bytes of committed blobs per second (goodput); per-second figures = bytes staged by successful Put Blocks",
            spec, slices, verified, failedBlobsHoldBytes: false);

    private protected override BlobWriteWords Words { get; } = new("Put Block", "Put Block List", "priming Put Block and Put Block List", null, "blocks");

    /// <summary>Its requests by kind, as counted (<see cref="TransactionCounts"/>): what the cost estimate prices.</summary>
    public static IReadOnlyList<TransactionLine> Transactions(IReadOnlyList<SliceResult> slices, VerificationResult verified) =>
        BlobWriteSummary.Transactions(slices, verified, Instance.Words);

    protected override IEnumerable<(string Name, string Value)> Parameters(BlobUploadSpec section) =>
    [
        ("blobSizeBytes", I(section.BlobSizeBytes)), ("blockSizeBytes", I(section.BlockSizeBytes)), ("parallelBlocks", I(section.ParallelBlocks)), ("slices", I(section.Slices)),
    ];

    protected override void ValidateParts(BlobUploadSpec section, SpecChecks errors, string p)
    {
        var b = section;
        if (errors.Real(p + "blockSizeBytes", b.BlockSizeBytes) > ServiceLimits.MaxBlockBytes)
        {
            errors.Add(new(p + "blockSizeBytes", errors.Shown(p + "blockSizeBytes", b.BlockSizeBytes),
                $"exceeds the service limit of 4000 MiB ({Num(ServiceLimits.MaxBlockBytes)} bytes) per block (Put Block)"));
        }
        else
        {
            errors.Range(p + "blockSizeBytes", b.BlockSizeBytes, 1, ServiceLimits.MaxDriverBlockBytes,
                "(the driver keeps one shared block buffer per slice in memory; the service allows up to 4000 MiB)");
        }
        errors.Range(p + "blobSizeBytes", b.BlobSizeBytes, 1, ServiceLimits.MaxBlocksPerBlob * ServiceLimits.MaxBlockBytes);
        WithinBlockLimit(b, errors, p, "blockSizeBytes", "blob");
        errors.Range(p + "parallelBlocks", b.ParallelBlocks, 1, 1_024);
        errors.Range(p + "blockRetries", b.BlockRetries, 0, 10);
    }
}
