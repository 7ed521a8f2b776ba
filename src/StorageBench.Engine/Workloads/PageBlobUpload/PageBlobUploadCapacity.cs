
namespace StorageBench.Engine.Workloads.PageBlobUpload;

/// <summary>The page blob plan: slices and accounts for the MB/s of page blobs written, within the documented per-blob request and account ingress targets.</summary>
internal static class PageBlobUploadCapacity
{
    internal static PlanOutcome Plan(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        var p = op.Spec.PageBlobUpload!;
        double target = request.Target;
        // A Put Page carries at most one range (the last of a blob may be shorter: the cautious reading takes every one as full).
        double rangeMb = Math.Min(p.PageRangeBytes, p.BlobSizeBytes) / 1e6;
        // Put Page per range, and one Put Blob (the create) per blob.
        double requestsPerSecond = target * 1e6 / p.BlobSizeBytes * PageBlobUploadSlice.RangeCount(p.BlobSizeBytes, p.PageRangeBytes) + target * 1e6 / p.BlobSizeBytes;
        return CapacityPlanner.PlanBlobs(PageBlobUploadRoom.Instance, sustained, op, request, targets, prices,
            new("page blob uploads", rangeMb, $"{rangeMb:0.###} MB page ranges", 1, p.ParallelRanges, $"{p.ParallelRanges} Put Pages", requestsPerSecond * 3600,
                prices.BlobWriteOperationsPer10k, target * 3600 / 1e3, 0),
            (slices, duration) => op.Spec with { PageBlobUpload = CapacityPlanner.ForDuration(p, duration) with { Slices = slices, BlobCount = Math.Max(p.BlobCount, slices) } });
    }
}
