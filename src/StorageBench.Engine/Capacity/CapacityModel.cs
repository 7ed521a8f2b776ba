
namespace StorageBench.Engine.Capacity;

/// <summary>
/// A workload's capacity model: what its plan scales out (slices, and its own units such as partitions), how many
/// requests a slice keeps in flight, and how its plan reads. A workload's room brings its model; <see cref="CapacityPlanner"/>
/// picks the operating point and sizes accounts and instances alike for every model.
/// </summary>
public abstract class CapacityModel
{
    /// <summary>Slices of the workload in a step's spec.</summary>
    public abstract int Slices(RunSpec spec);

    /// <summary>Requests a slice keeps in flight in a step's spec.</summary>
    public abstract int InFlight(RunSpec spec);

    /// <summary>The sustained steps a plan may use for this request, or why none may (the model does not extrapolate past what was measured).</summary>
    public virtual (List<MeasuredStep> Steps, string? Refusal) Narrow(List<MeasuredStep> sustained, PlanRequest request) => (sustained, null);

    public abstract PlanOutcome Plan(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices);

    /// <summary>What the plan moves, in words: "1,024-byte entities in batches of 100".</summary>
    public abstract string Describe(RunSpec spec);

    /// <summary>The in-flight line's label, and its note on where the figure comes from.</summary>
    public abstract string InFlightLabel { get; }

    public virtual string InFlightNote(CapacityPlan plan) => " (as measured)";

    /// <summary>How the written spec holds the rate: "(open loop: …)" or "(closed loop: at least this)".</summary>
    public abstract string ExpectedNote(CapacityPlan plan);

    /// <summary>The requests the cost line prices: "table transactions".</summary>
    public abstract string RequestsName { get; }

    /// <summary>True when the plan sizes partitions (a table's rate is bound per partition).</summary>
    public virtual bool SizesPartitions => false;
}
