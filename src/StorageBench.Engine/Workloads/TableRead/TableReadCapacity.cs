using static StorageBench.Engine.Capacity.CapacityPlanner;

namespace StorageBench.Engine.Workloads.TableRead;

/// <summary>The table read's capacity model: slices, partitions and accounts for a rate of entities read (<see cref="PlanTableRead"/>).</summary>
public sealed class TableReadCapacity() : TableCapacityModel<TableReadSpec>("read", "reads", "reads/s")
{
    protected override Workload Room => TableReadRoom.Instance;

    /// <summary>
    /// Of the one entity size's steps, only those of the best step's operation: a point read and a query page are different
    /// requests, and a plan does not extrapolate from one to the other.
    /// </summary>
    protected override (List<MeasuredStep> Steps, string? Refusal) NarrowSized(List<MeasuredStep> sized)
    {
        string operation = sized.MaxBy(s => s.Rate)!.Spec.TableRead!.Operation;
        return ([.. sized.Where(s => s.Spec.TableRead!.Operation == operation)], null);
    }

    public override PlanOutcome Plan(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices) =>
        PlanTableRead(sustained, op, request, targets, prices);

    public override string Describe(RunSpec spec) => spec.TableRead!.Operation == TableReadSpec.Query
        ? $"{spec.TableRead.EntitySizeBytes:N0}-byte entities read by partition queries of {spec.TableRead.QueryEntities:N0}"
        : $"{spec.TableRead.EntitySizeBytes:N0}-byte entities read by point reads";

    public override string InFlightLabel => "reads in flight/slice";

    private PlanOutcome PlanTableRead(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        var t = op.Spec.TableRead!;
        var start = PlanStart.Of(op, request, targets);
        var (target, azure, documented) = (start.Target, start.Azure, start.Documented);
        bool query = t.Operation == TableReadSpec.Query;

        // A request is one point read, or one query page: measured entities per page, else a full page of the query's entities (assumed).
        double pagesPerQuery = Math.Ceiling(t.QueryEntities / (double)TableReadRoom.MaxPageEntities);
        double entitiesPerRequest = !query ? 1 : op.EntitiesPerQueryPage is > 0 and var measuredPage ? measuredPage : t.QueryEntities / pagesPerQuery;
        string requestBasis = !query ? "one request per entity (a point read)"
            : op.EntitiesPerQueryPage is > 0 ? $"{entitiesPerRequest:N1} entities per query page, measured at {op.Label}"
            : $"{entitiesPerRequest:N1} entities per query page, assumed ({t.QueryEntities:N0} per query in pages of up to {TableReadRoom.MaxPageEntities:N0}; the step recorded none)";
        if (query)
        {
            pagesPerQuery = Math.Max(1, Math.Round(t.QueryEntities / entitiesPerRequest));
        }

        double perSlice = op.Rate / op.Slices;
        var (perPartition, partitionBasis, measuredPerPartition, bestPartition) =
            Partitions(sustained, start, targets, " (a single table partition's target, entities/s; the Table page does not say reads differ)");
        (double, string)? documentedAccount = azure
            ? DocumentedAccount(targets, documented, t.EntitySizeBytes, entitiesPerRequest, requestBasis, targets.AccountEgressGbps, "egress")
            : null;

        var (z, refusal) = Size(Entities, sustained, op, request, targets, documented, perSlice, documentedAccount);
        if (z is null)
        {
            return Refuse(refusal!);
        }
        int slices = z.Slices;
        // Each slice reads partitions of its own, so at least one partition per slice.
        int partitions = Math.Max(Math.Max((int)Math.Ceiling(target / perPartition), t.PartitionCount), slices);
        if (TooManyPartitions(target, partitions) is { } tooMany)
        {
            return Refuse(tooMany);
        }
        double entitiesPerRead = query ? t.QueryEntities : 1;
        double readsPerSlice = target / entitiesPerRead / slices;
        // A query's latency is that of its pages one after another.
        int inFlight = Math.Min(1_024, Math.Max(t.Concurrency, (int)Math.Ceiling(InFlightHeadroom * readsPerSlice * op.LatencyP99Ms * pagesPerQuery / 1000)));

        var notes = new List<string>();
        if (AboveDocumented(start, measuredPerPartition, bestPartition, targets, " read") is { } above)
        {
            notes.Add(above);
        }
        notes.Add("the seeded entities per partition stay as measured (more partitions seed more entities, outside the measured window and not in the cost per hour)");
        long perPartitionSeeded = Math.Max(1, t.EntityCount / t.PartitionCount);
        return Complete(start, op, request, z, new PlanParts(TableReadRoom.Instance, Entities, perSlice,
            $"measured: {op.Label} ({op.Rate:N0} entities/s over {op.Slices} slice(s) at {t.Concurrency} in flight each)", inFlight,
            [new("partitions", partitions, perPartition, partitionBasis)], notes,
            (slices, duration) => op.Spec with
            {
                TableRead = ForDuration(t, duration) with
                {
                    PartitionCount = partitions, EntityCount = Math.Max(t.EntityCount, perPartitionSeeded * partitions), Slices = slices, Concurrency = inFlight,
                    TargetOperationsPerSecond = Math.Round(target / entitiesPerRead, 3),
                },
            },
            instances => CapacityPlanner.Cost(prices, target / entitiesPerRequest * 3600, prices.TableTransactionsPer10k, instances, request.InstanceMemoryMb, 0, prices.TableStoragePerGbMonth),
            partitions));
    }
}
