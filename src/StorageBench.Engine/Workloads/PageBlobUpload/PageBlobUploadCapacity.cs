using StorageBench.Engine.Cost;
using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Capacity;

/// <summary>The page blob upload's capacity model: slices and accounts for MB/s of page blobs whose every page landed (<see cref="CapacityPlanner.PlanPageBlob"/>).</summary>
public sealed class PageBlobUploadCapacity : CapacityModel
{
    public override int Slices(RunSpec spec) => spec.PageBlobUpload!.Slices;

    public override int InFlight(RunSpec spec) => spec.PageBlobUpload!.ParallelRanges;

    public override PlanOutcome Plan(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices) =>
        CapacityPlanner.PlanPageBlob(sustained, op, request, targets, prices);

    public override string Describe(RunSpec spec) => $"{spec.PageBlobUpload!.BlobSizeBytes:N0}-byte page blobs in {spec.PageBlobUpload.PageRangeBytes:N0}-byte Put Pages";

    public override string InFlightLabel => "pages in flight/slice";

    public override string ExpectedNote(CapacityPlan plan) => " (closed loop: at least this)";

    public override string RequestsName => "blob write operations";
}
