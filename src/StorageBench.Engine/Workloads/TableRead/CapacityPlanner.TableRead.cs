using StorageBench.Engine.Cost;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads;

namespace StorageBench.Engine.Capacity;

/// <summary>The table read plan: partitions, slices and accounts for the entities read per second, within the documented partition, request and egress targets.</summary>
public static partial class CapacityPlanner
{
    private static readonly RateUnit EntitiesRead = new(r => $"{r:N0} {TableReadRoom.TableReadKind.RateUnit}", "slices, partitions or accounts", TableReadRoom.TableReadKind.UnitSingular);

    internal static PlanOutcome PlanTableRead(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        var t = op.Spec.TableRead!;
        double target = request.Target;
        bool azure = op.TargetKind != "Azurite";
        bool query = t.Operation == TableReadSpec.Query;
        string documented = $"documented: {targets.File}, read {targets.ReadOn}";
        var notes = new List<string>();

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
        var bestPartition = sustained.MaxBy(s => s.Rate / s.Spec.TableRead!.PartitionCount)!;
        double measuredPerPartition = bestPartition.Rate / bestPartition.Spec.TableRead!.PartitionCount;
        double perPartition = azure ? targets.TableEntitiesPerSecondPerPartition : measuredPerPartition;
        string partitionBasis = azure
            ? documented + " (a single table partition's target, entities/s; the Table page does not say reads differ)"
            : $"measured: {bestPartition.Label} ({bestPartition.Rate:N0} entities/s over {bestPartition.Spec.TableRead.PartitionCount} partition(s))";
        (double, string)? documentedAccount = null;
        if (azure)
        {
            long entityWireBytes = ServiceLimits.EncodedEntityBytes(t.EntitySizeBytes);
            double byRequests = targets.AccountRequestsPerSecond * entitiesPerRequest;
            double byEgress = targets.AccountEgressGbps * 1e9 / 8 / entityWireBytes;
            documentedAccount = (Math.Min(byRequests, byEgress), documented + (byEgress < byRequests
                ? $" ({targets.AccountEgressGbps:0.#} Gbps egress at about {entityWireBytes:N0} bytes per entity on the wire)"
                : $" ({targets.AccountRequestsPerSecond:N0} requests/s, {requestBasis})"));
        }

        var (z, refusal) = Size(EntitiesRead, sustained, op, request, targets, documented, perSlice, documentedAccount);
        if (z is null)
        {
            return Refuse(refusal!);
        }
        int accounts = z.Accounts, slices = z.Slices;
        // Each slice reads partitions of its own, so at least one partition per slice.
        int partitions = Math.Max(Math.Max((int)Math.Ceiling(target / perPartition), t.PartitionCount), slices);
        if (partitions > 100_000)
        {
            return Refuse($"{target:N0} entities/s needs {partitions:N0} partitions, more than the 100,000 a spec may name");
        }
        double entitiesPerRead = query ? t.QueryEntities : 1;
        double readsPerSlice = target / entitiesPerRead / slices;
        // A query's latency is that of its pages one after another.
        int inFlight = Math.Min(1_024, Math.Max(t.Concurrency, (int)Math.Ceiling(InFlightHeadroom * readsPerSlice * op.LatencyP99Ms * pagesPerQuery / 1000)));

        var limits = new List<PlanLimit>
        {
            new("slices", slices, perSlice, $"measured: {op.Label} ({op.Rate:N0} entities/s over {op.Slices} slice(s) at {t.Concurrency} in flight each)"),
            new("partitions", partitions, perPartition, partitionBasis),
            new("accounts", accounts, z.PerAccount, z.AccountBasis),
        };
        z.AddDriverCores(limits, notes);
        if (accounts > 1)
        {
            notes.Add($"spreads over {accounts} storage accounts: {target:N0} entities/s is more than one account serves ({z.PerAccount:N0} entities/s, {z.AccountBasis}); " +
                $"name them in STORAGEBENCH_TARGET_TABLE_ENDPOINTS (slice i reads from account i mod {accounts}); that accounts add up is assumed from the per-account targets, not measured");
        }
        if (azure && measuredPerPartition > targets.TableEntitiesPerSecondPerPartition)
        {
            notes.Add($"a partition was measured at {measuredPerPartition:N0} entities/s read ({bestPartition.Label}), above the documented {targets.TableEntitiesPerSecondPerPartition:N0}: the plan keeps to the documented target");
        }
        if (!azure)
        {
            notes.Add("Azurite has no documented targets: its partitions, slices and account are sized from what Azurite was measured to do; Function App instances and compute cost are what the same driver CPU would need on Flex Consumption");
        }
        notes.Add("the seeded entities per partition stay as measured (more partitions seed more entities, outside the measured window and not in the cost per hour)");

        double duration = Duration(request, op, t);
        long perPartitionSeeded = Math.Max(1, t.EntityCount / t.PartitionCount);
        var spec = op.Spec with
        {
            Scenario = Scenario(op.Spec.Scenario),
            TableRead = t with
            {
                PartitionCount = partitions,
                EntityCount = Math.Max(t.EntityCount, perPartitionSeeded * partitions),
                Slices = slices,
                Concurrency = inFlight,
                TargetOperationsPerSecond = Math.Round(target / entitiesPerRead, 3),
                DurationSeconds = duration,
                WarmupSeconds = t.WarmupSeconds < duration ? t.WarmupSeconds : 0,
                WarmupOperations = 0,
            },
        };
        return Finish(new CapacityPlan
        {
            Request = request,
            Workload = TableReadRoom.TableReadKind.Name,
            TargetKind = op.TargetKind,
            OperatingPoint = op,
            Partitions = partitions,
            Slices = slices,
            InFlightPerSlice = inFlight,
            Accounts = accounts,
            Instances = z.Instances,
            DriverCores = z.Cores,
            Limits = limits,
            Bottleneck = limits.MinBy(l => l.Capacity)!,
            ExpectedThroughput = target,
            Cost = Cost(prices, target / entitiesPerRequest * 3600, prices.TableTransactionsPer10k, z.Instances, request.InstanceMemoryMb, 0, prices.TableStoragePerGbMonth),
            Notes = notes,
            Spec = spec,
        });
    }
}
