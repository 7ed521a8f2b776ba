
namespace StorageBench.Engine.Workloads.PageBlobUpload;

/// <summary>
/// The page blob upload's room: each blob created at its size, then Put Page in ranges of at most 4 MiB, in parallel, into
/// the step's own container — its rules (512-byte pages, the page blob and Put Page limits), its plan (blobs shared out
/// over slices), its loop (<see cref="PageBlobUploadSlice"/>), its ground truth (<see cref="PageBlobGroundTruth"/>), its
/// goodput in MB/s, latency per Put Page and its request lines.
/// </summary>
public sealed class PageBlobUploadRoom : BlobWriteRoom<PageBlobUploadSpec>
{
    public static PageBlobUploadRoom Instance { get; } = new();

    /// <summary>Goodput in MB/s of wholly written page blobs; its results columns start with "PageBlob".</summary>
    public override WorkloadKind Kind { get; } = WorkloadKind.CountingBytes("pageBlobUpload", "PageBlob") with { Done = "uploaded" };

    public override CapacityModel Capacity { get; } = new BlobCapacityModel(s => s.PageBlobUpload!.Slices, s => s.PageBlobUpload!.ParallelRanges,
        PageBlobUploadCapacity.Plan, s => $"{s.PageBlobUpload!.BlobSizeBytes:N0}-byte page blobs in {s.PageBlobUpload.PageRangeBytes:N0}-byte Put Pages",
        "pages in flight/slice", "blob write operations");

    /// <summary>Its own container beside blobUpload's, so the page-or-block comparison counts each workload's blobs apart.</summary>
    public override string TargetSuffix => "p";

    public override WorkloadSpec? SectionOf(RunSpec spec) => spec.PageBlobUpload;

    protected override void ValidateParts(PageBlobUploadSpec section, SpecChecks errors, string p)
    {
        PageMultiple(errors, p + "blobSizeBytes", section.BlobSizeBytes, ServiceLimits.PageBytes, ServiceLimits.MaxPageBlobBytes, "(the service's page blob limit, 8 TiB)");
        PageMultiple(errors, p + "pageRangeBytes", section.PageRangeBytes, ServiceLimits.PageBytes, ServiceLimits.MaxPutPageBytes, "(the service's limit per Put Page, 4 MiB)");
        errors.Range(p + "parallelRanges", section.ParallelRanges, 1, 1_024);
        errors.Range(p + "retries", section.Retries, 0, 10);
    }

    /// <summary>A size in whole pages: a multiple of <paramref name="page"/> from one page up to <paramref name="max"/>.</summary>
    private static void PageMultiple(SpecChecks errors, string field, double value, int page, double max, string why)
    {
        double v = errors.Real(field, value);
        if (v >= page && v <= max && v % page != 0)
        {
            errors.Add(new(field, errors.Shown(field, value), $"must be a multiple of {page} (a page)"));
        }
        else
        {
            errors.Range(field, value, page, max, $"{why}, in whole pages of {page}");
        }
    }

    protected override int PartBytesOf(PageBlobUploadSpec section) => section.PageRangeBytes;

    protected override Task<SliceResult> RunSliceAsync(BlobSlicePlan<PageBlobUploadSpec> plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger) =>
        PageBlobUploadSlice.RunAsync(plan, target, time, ct, live, logger);

    protected override Task<VerificationResult> VerifyAsync(VerifyBlobsInput order, IReadOnlyList<StorageTarget> targets, CancellationToken ct) =>
        PageBlobGroundTruth.VerifyAsync(targets, order.ContainerName, order.AcceptedAttempts, order.ReportedBlobs, order.BlobSizeBytes, order.ContentMd5ByAttempt, ct);

    /// <summary>Goodput: bytes of page blobs whose every page landed; a failed blob holds the pages that did land.</summary>
    protected override WorkloadSummary Summarize(PageBlobUploadSpec section, IReadOnlyList<SliceResult> slices, VerificationResult verified) =>
        SummarizeBlobs(
            $"operation = one Put Page (up to {section.PageRangeBytes} B) or the Put Blob that creates a page blob of {section.BlobSizeBytes} B, retries included; " +
            "latency = successful Put Page requests; throughput = bytes of page blobs whose every page landed per second (goodput); " +
            "per-second figures = bytes written by successful Put Pages",
            section, slices, verified, failedBlobsHoldBytes: true);

    private protected override BlobWriteWords Words { get; } = new("Put Page", "Put Blob (page blob create)", "priming Put Blob (page blob create) and Put Page", "Get Page Ranges", "ranges");

    protected override IEnumerable<(string Name, string Value)> Parameters(PageBlobUploadSpec section) =>
    [
        ("blobSizeBytes", I(section.BlobSizeBytes)), ("pageRangeBytes", I(section.PageRangeBytes)), ("parallelRanges", I(section.ParallelRanges)), ("slices", I(section.Slices)),
    ];
}
