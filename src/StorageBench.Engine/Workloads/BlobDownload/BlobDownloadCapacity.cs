using StorageBench.Engine.Cost;
using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Capacity;

/// <summary>The blob download's capacity model: slices, blobs and accounts for MB/s of whole blobs read back (<see cref="CapacityPlanner.PlanBlobDownload"/>).</summary>
public sealed class BlobDownloadCapacity : CapacityModel
{
    public override int Slices(RunSpec spec) => spec.BlobDownload!.Slices;

    public override int InFlight(RunSpec spec) => spec.BlobDownload!.ParallelRanges;

    public override PlanOutcome Plan(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices) =>
        CapacityPlanner.PlanBlobDownload(sustained, op, request, targets, prices);

    public override string Describe(RunSpec spec) => spec.BlobDownload!.RangeSizeBytes > 0
        ? $"{spec.BlobDownload.BlobSizeBytes:N0}-byte blobs read in {spec.BlobDownload.RangeSizeBytes:N0}-byte ranges"
        : $"{spec.BlobDownload.BlobSizeBytes:N0}-byte blobs read whole";

    public override string InFlightLabel => "ranges in flight/slice";

    public override string ExpectedNote(CapacityPlan plan) => " (closed loop: at least this)";

    public override string RequestsName => "blob read operations";
}
