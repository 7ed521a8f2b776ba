
namespace StorageBench.Engine.Capacity;

/// <summary>A blob room's capacity model, declared by its parts: its slices and requests in flight, its plan, and its words. Blob rooms run closed loops only.</summary>
/// <param name="planner">The room's plan (its blob template, <see cref="CapacityPlanner.PlanBlobs"/>).</param>
public sealed class BlobCapacityModel(Func<RunSpec, int> slices, Func<RunSpec, int> inFlight,
    Func<List<MeasuredStep>, MeasuredStep, PlanRequest, ScalabilityTargets, PriceTable, PlanOutcome> planner, Func<RunSpec, string> describe, string inFlightLabel,
    string requestsName) : CapacityModel
{
    public override int Slices(RunSpec spec) => slices(spec);

    public override int InFlight(RunSpec spec) => inFlight(spec);

    public override PlanOutcome Plan(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices) =>
        planner(sustained, op, request, targets, prices);

    public override string Describe(RunSpec spec) => describe(spec);

    public override string InFlightLabel => inFlightLabel;

    public override string ExpectedNote(CapacityPlan plan) => " (closed loop: at least this)";

    public override string RequestsName => requestsName;
}
