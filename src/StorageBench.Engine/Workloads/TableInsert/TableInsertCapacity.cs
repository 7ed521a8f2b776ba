using static StorageBench.Engine.Capacity.CapacityPlanner;

namespace StorageBench.Engine.Workloads.TableInsert;

/// <summary>The table insert's capacity model: slices, partitions and accounts for an entity rate (<see cref="PlanTable"/>).</summary>
public sealed class TableInsertCapacity() : TableCapacityModel<TableInsertSpec>("wrote", "requests", "batches/s")
{
    protected override Workload Room => TableInsertRoom.Instance;

    public override PlanOutcome Plan(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices) =>
        PlanTable(sustained, op, request, targets, prices);

    public override string Describe(RunSpec spec) => $"{spec.TableInsert!.EntitySizeBytes:N0}-byte entities in batches of {spec.TableInsert.BatchSize}";

    public override string InFlightLabel => "in flight per slice";

    private PlanOutcome PlanTable(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        var t = op.Spec.TableInsert!;
        var start = PlanStart.Of(op, request, targets);
        var (target, azure, documented) = (start.Target, start.Azure, start.Documented);
        double perSlice = op.Rate / op.Slices;
        var (perPartition, partitionBasis, measuredPerPartition, bestPartition) = Partitions(sustained, start, targets, null);
        (double, string)? documentedAccount = azure
            ? DocumentedAccount(targets, documented, t.EntitySizeBytes, 1, "each entity of a batch counted", targets.AccountIngressGbps, "ingress")
            : null;

        var (z, refusal) = Size(Entities, sustained, op, request, targets, documented, perSlice, documentedAccount);
        if (z is null)
        {
            return Refuse(refusal!);
        }
        int slices = z.Slices;
        int partitions = Math.Max((int)Math.Ceiling(target / perPartition), t.PartitionCount);
        double opsPerSlice = target / t.BatchSize / slices;
        int inFlight = Math.Min(1_024, Math.Max(t.Concurrency, (int)Math.Ceiling(InFlightHeadroom * opsPerSlice * op.LatencyP99Ms / 1000)));
        if (TooManyPartitions(target, partitions) is { } tooMany)
        {
            return Refuse(tooMany);
        }

        var notes = new List<string>();
        if (AboveDocumented(start, measuredPerPartition, bestPartition, targets, "") is { } above)
        {
            notes.Add(above);
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
                TableInsert = ForDuration(t, duration) with
                {
                    PartitionCount = partitions, Slices = slices, Concurrency = inFlight, TargetOperationsPerSecond = Math.Round(target / t.BatchSize, 3),
                    EntityCount = Math.Max(t.EntityCount, slices),
                },
            },
            instances => CapacityPlanner.Cost(prices, requestsPerSecond * 3600, prices.TableTransactionsPer10k, instances, request.InstanceMemoryMb,
                target * t.EntitySizeBytes * 3600 / 1e9, prices.TableStoragePerGbMonth), partitions));
    }
}
