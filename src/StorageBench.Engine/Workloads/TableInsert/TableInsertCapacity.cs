using StorageBench.Engine.Cost;
using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Capacity;

/// <summary>The table insert's capacity model: slices, partitions and accounts for an entity rate (<see cref="CapacityPlanner.PlanTable"/>).</summary>
public sealed class TableInsertCapacity : CapacityModel
{
    public override int Slices(RunSpec spec) => spec.TableInsert!.Slices;

    public override int InFlight(RunSpec spec) => spec.TableInsert!.Concurrency;

    /// <summary>Only steps of one entity size: the asked one, else the best step's. A plan does not extrapolate across sizes.</summary>
    public override (List<MeasuredStep> Steps, string? Refusal) Narrow(List<MeasuredStep> sustained, PlanRequest request)
    {
        int size = request.EntitySizeBytes ?? sustained.MaxBy(s => s.Rate)!.Spec.TableInsert!.EntitySizeBytes;
        var sized = sustained.Where(s => s.Spec.TableInsert!.EntitySizeBytes == size).ToList();
        return sized.Count > 0 ? (sized, null)
            : (sized, $"no sustained step wrote entities of {size:N0} bytes (measured: {string.Join(", ", sustained.Select(s => s.Spec.TableInsert!.EntitySizeBytes).Distinct().Order().Select(b => $"{b:N0}"))} bytes); " +
                "a plan does not extrapolate across entity sizes: measure that size first");
    }

    public override PlanOutcome Plan(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices) =>
        CapacityPlanner.PlanTable(sustained, op, request, targets, prices);

    public override string Describe(RunSpec spec) => $"{spec.TableInsert!.EntitySizeBytes:N0}-byte entities in batches of {spec.TableInsert.BatchSize}";

    public override string InFlightLabel => "in flight per slice";

    public override string InFlightNote(CapacityPlan plan) => plan.InFlightPerSlice > plan.OperatingPoint.Spec.TableInsert!.Concurrency
        ? $" (measured at {plan.OperatingPoint.Spec.TableInsert.Concurrency}; room for {CapacityPlanner.InFlightHeadroom:0}× the requests its p99 keeps in flight, assumed)"
        : " (as measured)";

    public override string ExpectedNote(CapacityPlan plan) =>
        $" (open loop: tableInsert.targetOperationsPerSecond {plan.Spec.TableInsert!.TargetOperationsPerSecond:0.###} batches/s)";

    public override string RequestsName => "table transactions";

    public override bool SizesPartitions => true;
}
