
namespace StorageBench.Engine.Cost;

/// <summary>
/// A workload's requests by kind, from what the run really did: the measured window's requests are
/// the slices' own counts (every request recorded, warm-up included); priming is counted by the primer;
/// verification, create and delete are counted on the wire; and whatever the wire saw beyond the
/// slices' counts is SDK retries. No count comes from the spec.
/// </summary>
public static class TransactionCounts
{
    /// <summary>The workload's own table's or container's Create and Delete, added once the step has done them.</summary>
    public static WorkloadSummary WithTargets(WorkloadSummary w, TargetService service, string name, TargetRequests? created, TargetRequests? deleted)
    {
        bool table = service == TargetService.Table;
        var lines = w.Transactions.ToList();
        if (created is not null)
        {
            Add(lines, table ? new("Create Table", Phases.Setup, BilledAs.TableTransaction, created.ByName.GetValueOrDefault(name))
                : new("Create Container", Phases.Setup, BilledAs.BlobListOrCreateContainer, created.ByName.GetValueOrDefault(name)));
        }
        if (deleted is not null)
        {
            Add(lines, table ? new("Delete Table", Phases.Cleanup, BilledAs.TableTransaction, deleted.ByName.GetValueOrDefault(name))
                : new("Delete Container", Phases.Cleanup, BilledAs.Free, deleted.ByName.GetValueOrDefault(name)));
        }
        return w with { Transactions = lines };
    }

    /// <summary>A reading workload's seeding requests (<see cref="Workloads.Workload.SeedingLine"/>) among its lines; none for one that seeds nothing.</summary>
    public static WorkloadSummary WithSeeding(WorkloadSummary w, TransactionLine? seeding) =>
        seeding is { Requests: > 0 } ? w with { Transactions = [.. w.Transactions, seeding] } : w;

    /// <summary>A line is shown when something was sent (a negative remainder cannot happen, and is not shown).</summary>
    public static void Add(List<TransactionLine> lines, TransactionLine line)
    {
        if (line.Requests > 0)
        {
            lines.Add(line);
        }
    }

    /// <summary>The slices' request counts, summed.</summary>
    public static SliceRequests Sum(IReadOnlyList<SliceResult> slices) => new()
    {
        Wire = slices.Sum(s => s.Requests.Wire),
        PrimingWrites = slices.Sum(s => s.Requests.PrimingWrites),
        PrimingEntities = slices.Sum(s => s.Requests.PrimingEntities),
        PrimingProbes = slices.Sum(s => s.Requests.PrimingProbes),
        PrimingDeletes = slices.Sum(s => s.Requests.PrimingDeletes),
        PrimingRequests = slices.Sum(s => s.Requests.PrimingRequests),
        PrimingThrottled = slices.Sum(s => s.Requests.PrimingThrottled),
        PrimingFailed = slices.Sum(s => s.Requests.PrimingFailed),
        BlockLists = slices.Sum(s => s.Requests.BlockLists),
        BlockListsFailed = slices.Sum(s => s.Requests.BlockListsFailed),
        PrimingReads = slices.Sum(s => s.Requests.PrimingReads),
    };
}
