
namespace StorageBench.Engine.Workloads.BlobDownload;

/// <summary>The download plan: slices, blobs and accounts for the MB/s read back, within the documented per-blob request and account egress targets.</summary>
internal static class BlobDownloadCapacity
{
    internal static PlanOutcome Plan(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        var d = op.Spec.BlobDownload!;
        double target = request.Target;
        // One Get Blob reads a range, or a whole blob; with ranges a slice reads one blob at a time, whole, each of its loops its own.
        double requestMb = (d.RangeSizeBytes > 0 ? d.RangeSizeBytes : d.BlobSizeBytes) / 1e6;
        string requestWords = d.RangeSizeBytes > 0 ? $"{requestMb:0.###} MB ranges" : $"whole {requestMb:0.###} MB blobs";
        int blobs = d.BlobCount;
        return CapacityPlanner.PlanBlobs(BlobDownloadRoom.Instance, sustained, op, request, targets, prices,
            new("blob downloads", requestMb, requestWords, d.RangeSizeBytes > 0 ? 1 : d.ParallelRanges, d.ParallelRanges, $"{d.ParallelRanges} Get Blob",
                target / requestMb * 3600, prices.BlobReadOperationsPer10k, 0, target * 3600 / 1e3),
            (slices, duration) => op.Spec with { BlobDownload = CapacityPlanner.ForDuration(d, duration) with { Slices = slices, BlobCount = blobs } },
            (s, z) =>
            {
                // The slices cycle through every blob, so on Azure the reads spread over them: enough blobs that none passes its request target.
                blobs = Math.Max(d.BlobCount, z.Slices);
                if (!s.Azure)
                {
                    return [];
                }
                double perBlob = targets.BlobRequestsPerSecond * requestMb;
                blobs = Math.Max(blobs, (int)Math.Ceiling(target / perBlob));
                return [new("blobs", blobs, perBlob, $"{s.Documented} ({targets.BlobRequestsPerSecond:N0} requests/s per blob × {requestWords}); that the slices' reads spread evenly over the blobs is assumed")];
            });
    }
}
