using static StorageBench.Engine.Capacity.CapacityPlanner;

namespace StorageBench.Engine.Capacity;

/// <summary>What a table room's section holds that its capacity plan reads: entity size, partitions, slices, requests in flight, open-loop rate.</summary>
public interface ITableSection
{
    int EntitySizeBytes { get; }

    int PartitionCount { get; }

    int Concurrency { get; }

    int Slices { get; }

    double TargetOperationsPerSecond { get; }
}

/// <summary>
/// The capacity model every table room shares: slices, partitions and accounts for a rate of entities, steps of one entity size
/// only, the best partition measured, and the plan's words. A room gives its section, its verbs and its plan.
/// </summary>
/// <param name="did">What its steps did to entities ("wrote", "read"), for the refusal of a size not measured.</param>
/// <param name="inFlight">What a slice keeps in flight ("requests", "reads").</param>
/// <param name="perSecond">What its open-loop rate counts ("batches/s", "reads/s").</param>
public abstract class TableCapacityModel<TSpec>(string did, string inFlight, string perSecond) : CapacityModel
    where TSpec : WorkloadSpec, ITableSection
{
    /// <summary>Its room: read when planning, not at type load (the room makes this model while it is being made).</summary>
    protected abstract Workload Room { get; }

    protected TSpec Section(RunSpec spec) => (TSpec)Room.SectionOf(spec)!;

    public override int Slices(RunSpec spec) => Section(spec).Slices;

    public override int InFlight(RunSpec spec) => Section(spec).Concurrency;

    /// <summary>Only steps of one entity size: the asked one, else the best step's. A plan does not extrapolate across sizes.</summary>
    public override (List<MeasuredStep> Steps, string? Refusal) Narrow(List<MeasuredStep> sustained, PlanRequest request)
    {
        int size = request.EntitySizeBytes ?? Section(sustained.MaxBy(s => s.Rate)!.Spec).EntitySizeBytes;
        var sized = sustained.Where(s => Section(s.Spec).EntitySizeBytes == size).ToList();
        return sized.Count > 0 ? NarrowSized(sized)
            : (sized, $"no sustained step {did} entities of {size:N0} bytes (measured: {string.Join(", ", sustained.Select(s => Section(s.Spec).EntitySizeBytes).Distinct().Order().Select(b => $"{b:N0}"))} bytes); " +
                "a plan does not extrapolate across entity sizes: measure that size first");
    }

    /// <summary>
    /// An account's documented entities/s on Azure: its requests/s (<paramref name="entitiesPerRequest"/> entities each) or its
    /// <paramref name="direction"/> bandwidth (<paramref name="gbps"/>) over the entities' size on the wire, whichever is lower, and why.
    /// </summary>
    protected static (double PerAccount, string Basis) DocumentedAccount(ScalabilityTargets targets, string documented, int entitySizeBytes,
        double entitiesPerRequest, string requestBasis, double gbps, string direction)
    {
        long entityWireBytes = ServiceLimits.EncodedEntityBytes(entitySizeBytes);
        double byRequests = targets.AccountRequestsPerSecond * entitiesPerRequest;
        double byBandwidth = gbps * 1e9 / 8 / entityWireBytes;
        return (Math.Min(byRequests, byBandwidth), documented + (byBandwidth < byRequests
            ? $" ({gbps:0.#} Gbps {direction} at about {entityWireBytes:N0} bytes per entity on the wire)"
            : $" ({targets.AccountRequestsPerSecond:N0} requests/s, {requestBasis})"));
    }

    /// <summary>The steps of the one size, narrowed further where the room's requests differ in kind.</summary>
    protected virtual (List<MeasuredStep> Steps, string? Refusal) NarrowSized(List<MeasuredStep> sized) => (sized, null);

    public override string InFlightNote(CapacityPlan plan) => plan.InFlightPerSlice > Section(plan.OperatingPoint.Spec).Concurrency
        ? $" (measured at {Section(plan.OperatingPoint.Spec).Concurrency}; room for {InFlightHeadroom:0}× the {inFlight} its p99 keeps in flight, assumed)"
        : " (as measured)";

    public override string ExpectedNote(CapacityPlan plan) =>
        $" (open loop: {Room.Name}.targetOperationsPerSecond {Section(plan.Spec).TargetOperationsPerSecond:0.###} {perSecond})";

    public override string RequestsName => "table transactions";

    public override bool SizesPartitions => true;

    internal RateUnit Entities => new(r => $"{r:N0} {Room.Kind.RateUnit}", "slices, partitions or accounts", Room.Kind.UnitSingular);

    /// <summary>What a partition takes: the documented target on Azure, else the best rate per partition measured, with its basis.</summary>
    /// <param name="documentedWhat">What the documented basis adds after its file's words; null: nothing.</param>
    internal (double PerPartition, string Basis, double Measured, MeasuredStep Best) Partitions(List<MeasuredStep> sustained, PlanStart start, ScalabilityTargets targets,
        string? documentedWhat)
    {
        var best = sustained.MaxBy(s => s.Rate / Section(s.Spec).PartitionCount)!;
        double measured = best.Rate / Section(best.Spec).PartitionCount;
        return start.Azure
            ? (targets.TableEntitiesPerSecondPerPartition, start.Documented + documentedWhat, measured, best)
            : (measured, $"measured: {best.Label} ({best.Rate:N0} entities/s over {Section(best.Spec).PartitionCount} partition(s))", measured, best);
    }

    /// <summary>The refusal of a plan over the partitions a spec may name; null within them.</summary>
    internal static string? TooManyPartitions(double target, int partitions) => partitions > 100_000
        ? $"{target:N0} entities/s needs {partitions:N0} partitions, more than the 100,000 a spec may name"
        : null;

    /// <summary>The note when a partition was measured above its documented target on Azure; null otherwise.</summary>
    internal static string? AboveDocumented(PlanStart start, double measured, MeasuredStep best, ScalabilityTargets targets, string what) =>
        start.Azure && measured > targets.TableEntitiesPerSecondPerPartition
            ? $"a partition was measured at {measured:N0} entities/s{what} ({best.Label}), above the documented {targets.TableEntitiesPerSecondPerPartition:N0}: the plan keeps to the documented target"
            : null;
}
