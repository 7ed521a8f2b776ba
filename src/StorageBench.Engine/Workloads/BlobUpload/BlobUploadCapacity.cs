
namespace StorageBench.Engine.Workloads.BlobUpload;

/// <summary>The blob plan: slices and accounts for the MB/s of committed blobs, within the documented per-blob request and account ingress targets.</summary>
internal static class BlobUploadCapacity
{
    internal static PlanOutcome Plan(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        var b = op.Spec.BlobUpload!;
        double blockMb = b.BlockSizeBytes / 1e6, target = request.Target;
        // Put Block, and one Put Block List per blob.
        double putsPerSecond = target / blockMb + target * 1e6 / b.BlobSizeBytes;
        return CapacityPlanner.PlanBlobs(BlobUploadRoom.Instance, sustained, op, request, targets, prices,
            new("blob uploads", blockMb, $"{blockMb:0.###} MB blocks", 1, b.ParallelBlocks, $"{b.ParallelBlocks} blocks", putsPerSecond * 3600, prices.BlobWriteOperationsPer10k,
                target * 3600 / 1e3, 0),
            (slices, duration) => op.Spec with { BlobUpload = CapacityPlanner.ForDuration(b, duration) with { Slices = slices, BlobCount = Math.Max(b.BlobCount, slices) } });
    }
}
