using StorageBench.Engine.Cost;
using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Capacity;

/// <summary>The block blob upload's capacity model: slices and accounts for MB/s of committed blobs (<see cref="CapacityPlanner.PlanBlob"/>).</summary>
public sealed class BlobUploadCapacity : CapacityModel
{
    public override int Slices(RunSpec spec) => spec.BlobUpload!.Slices;

    public override int InFlight(RunSpec spec) => spec.BlobUpload!.ParallelBlocks;

    public override PlanOutcome Plan(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices) =>
        CapacityPlanner.PlanBlob(sustained, op, request, targets, prices);

    public override string Describe(RunSpec spec) => $"{spec.BlobUpload!.BlobSizeBytes:N0}-byte blobs in {spec.BlobUpload.BlockSizeBytes:N0}-byte blocks";

    public override string InFlightLabel => "blocks in flight/slice";

    public override string ExpectedNote(CapacityPlan plan) => " (closed loop: at least this)";

    public override string RequestsName => "blob write operations";
}
