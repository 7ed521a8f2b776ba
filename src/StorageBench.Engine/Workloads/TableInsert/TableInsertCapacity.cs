using static StorageBench.Engine.Capacity.CapacityPlanner;

namespace StorageBench.Engine.Workloads.TableInsert;

/// <summary>The table insert's capacity model: slices, partitions and accounts for an entity rate (<see cref="PlanTable"/>).</summary>
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
        PlanTable(sustained, op, request, targets, prices);

    public override string Describe(RunSpec spec) => $"{spec.TableInsert!.EntitySizeBytes:N0}-byte entities in batches of {spec.TableInsert.BatchSize}";

    public override string InFlightLabel => "in flight per slice";

    public override string InFlightNote(CapacityPlan plan) => plan.InFlightPerSlice > plan.OperatingPoint.Spec.TableInsert!.Concurrency
        ? $" (measured at {plan.OperatingPoint.Spec.TableInsert.Concurrency}; room for {CapacityPlanner.InFlightHeadroom:0}× the requests its p99 keeps in flight, assumed)"
        : " (as measured)";

    public override string ExpectedNote(CapacityPlan plan) =>
        $" (open loop: tableInsert.targetOperationsPerSecond {plan.Spec.TableInsert!.TargetOperationsPerSecond:0.###} batches/s)";

    public override string RequestsName => "table transactions";

    public override bool SizesPartitions => true;

    // Read when planning, not at type load: the room makes this model while it is being made.
    private static RateUnit Entities => new(r => $"{r:N0} {TableInsertRoom.Instance.Kind.RateUnit}", "slices, partitions or accounts", TableInsertRoom.Instance.Kind.UnitSingular);

    private static PlanOutcome PlanTable(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        var t = op.Spec.TableInsert!;
        var start = PlanStart.Of(op, request, targets);
        var (target, azure, documented) = (start.Target, start.Azure, start.Documented);

        double perSlice = op.Rate / op.Slices;
        var bestPartition = sustained.MaxBy(s => s.Rate / s.Spec.TableInsert!.PartitionCount)!;
        double measuredPerPartition = bestPartition.Rate / bestPartition.Spec.TableInsert!.PartitionCount;

        double perPartition = azure ? targets.TableEntitiesPerSecondPerPartition : measuredPerPartition;
        string partitionBasis = azure ? documented : $"measured: {bestPartition.Label} ({bestPartition.Rate:N0} entities/s over {bestPartition.Spec.TableInsert.PartitionCount} partition(s))";
        (double, string)? documentedAccount = null;
        if (azure)
        {
            long entityWireBytes = ServiceLimits.EncodedEntityBytes(t.EntitySizeBytes);
            double ingressPerAccount = targets.AccountIngressGbps * 1e9 / 8 / entityWireBytes;
            double perAccount = Math.Min(targets.AccountRequestsPerSecond, ingressPerAccount);
            documentedAccount = (perAccount, documented + (perAccount < targets.AccountRequestsPerSecond
                ? $" ({targets.AccountIngressGbps:0.#} Gbps ingress at about {entityWireBytes:N0} bytes per entity on the wire)"
                : $" ({targets.AccountRequestsPerSecond:N0} requests/s, each entity of a batch counted)"));
        }

        var (z, refusal) = Size(Entities, sustained, op, request, targets, documented, perSlice, documentedAccount);
        if (z is null)
        {
            return Refuse(refusal!);
        }
        int slices = z.Slices;
        int partitions = Math.Max((int)Math.Ceiling(target / perPartition), t.PartitionCount);
        double opsPerSlice = target / t.BatchSize / slices;
        int inFlight = Math.Min(1_024, Math.Max(t.Concurrency, (int)Math.Ceiling(InFlightHeadroom * opsPerSlice * op.LatencyP99Ms / 1000)));
        if (partitions > 100_000)
        {
            return Refuse($"{target:N0} entities/s needs {partitions:N0} partitions, more than the 100,000 a spec may name");
        }

        var notes = new List<string>();
        if (azure && measuredPerPartition > targets.TableEntitiesPerSecondPerPartition)
        {
            notes.Add($"a partition was measured at {measuredPerPartition:N0} entities/s ({bestPartition.Label}), above the documented {targets.TableEntitiesPerSecondPerPartition:N0}: the plan keeps to the documented target");
        }
        double duration = Duration(request, op, t);
        if (request.DurationSeconds is null && t.DurationSeconds > 0 && duration > t.DurationSeconds)
        {
            notes.Add($"the spec runs {duration:0} s where the measured step ran {t.DurationSeconds:0} s, so that its last request's latency (p50 {op.LatencyP50Ms:0} ms) is at most " +
                $"{100 / DrainWindows:0}% of its measured window" + (azure ? "" : "; Azurite slows as a table fills, so a run longer than measured is an extrapolation"));
        }
        double requestsPerSecond = prices.EntityGroupTransactionBilling == PriceTable.PerEntity || t.BatchSize == 1 ? target : target / t.BatchSize;
        return Complete(start, op, request, z, new PlanParts(TableInsertRoom.Instance, Entities, perSlice,
            $"measured: {op.Label} ({op.Rate:N0} entities/s over {op.Slices} slice(s) at {t.Concurrency} in flight each)", inFlight,
            [new("partitions", partitions, perPartition, partitionBasis)], notes,
            (slices, duration) => op.Spec with
            {
                TableInsert = t with
                {
                    PartitionCount = partitions,
                    Slices = slices,
                    Concurrency = inFlight,
                    TargetOperationsPerSecond = Math.Round(target / t.BatchSize, 3),
                    DurationSeconds = duration,
                    WarmupSeconds = t.WarmupSeconds < duration ? t.WarmupSeconds : 0,
                    WarmupOperations = 0,
                    EntityCount = Math.Max(t.EntityCount, slices),
                },
            },
            instances => CapacityPlanner.Cost(prices, requestsPerSecond * 3600, prices.TableTransactionsPer10k, instances, request.InstanceMemoryMb,
                target * t.EntitySizeBytes * 3600 / 1e9, prices.TableStoragePerGbMonth), partitions));
    }
}
