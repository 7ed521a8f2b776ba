using StorageBench.Engine.Cost;
using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Capacity;

/// <summary>The table read's capacity model: slices, partitions and accounts for a rate of entities read (<see cref="CapacityPlanner.PlanTableRead"/>).</summary>
public sealed class TableReadCapacity : CapacityModel
{
    public override int Slices(RunSpec spec) => spec.TableRead!.Slices;

    public override int InFlight(RunSpec spec) => spec.TableRead!.Concurrency;

    /// <summary>
    /// Only steps of one entity size (the asked one, else the best step's) and of that step's operation: a point read and
    /// a query page are different requests, and a plan does not extrapolate across sizes or from one to the other.
    /// </summary>
    public override (List<MeasuredStep> Steps, string? Refusal) Narrow(List<MeasuredStep> sustained, PlanRequest request)
    {
        int size = request.EntitySizeBytes ?? sustained.MaxBy(s => s.Rate)!.Spec.TableRead!.EntitySizeBytes;
        var sized = sustained.Where(s => s.Spec.TableRead!.EntitySizeBytes == size).ToList();
        if (sized.Count == 0)
        {
            return (sized, $"no sustained step read entities of {size:N0} bytes (measured: {string.Join(", ", sustained.Select(s => s.Spec.TableRead!.EntitySizeBytes).Distinct().Order().Select(b => $"{b:N0}"))} bytes); " +
                "a plan does not extrapolate across entity sizes: measure that size first");
        }
        string operation = sized.MaxBy(s => s.Rate)!.Spec.TableRead!.Operation;
        return ([.. sized.Where(s => s.Spec.TableRead!.Operation == operation)], null);
    }

    public override PlanOutcome Plan(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices) =>
        CapacityPlanner.PlanTableRead(sustained, op, request, targets, prices);

    public override string Describe(RunSpec spec) => spec.TableRead!.Operation == TableReadSpec.Query
        ? $"{spec.TableRead.EntitySizeBytes:N0}-byte entities read by partition queries of {spec.TableRead.QueryEntities:N0}"
        : $"{spec.TableRead.EntitySizeBytes:N0}-byte entities read by point reads";

    public override string InFlightLabel => "reads in flight/slice";

    public override string InFlightNote(CapacityPlan plan) => plan.InFlightPerSlice > plan.OperatingPoint.Spec.TableRead!.Concurrency
        ? $" (measured at {plan.OperatingPoint.Spec.TableRead.Concurrency}; room for {CapacityPlanner.InFlightHeadroom:0}× the reads its p99 keeps in flight, assumed)"
        : " (as measured)";

    public override string ExpectedNote(CapacityPlan plan) =>
        $" (open loop: tableRead.targetOperationsPerSecond {plan.Spec.TableRead!.TargetOperationsPerSecond:0.###} reads/s)";

    public override string RequestsName => "table transactions";

    public override bool SizesPartitions => true;
}
