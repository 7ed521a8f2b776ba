using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;

namespace StorageBench.Engine.Cost;

/// <summary>
/// A workload's requests by kind, from what the run really did: the measured window's requests are
/// the slices' own counts (every request recorded, warm-up included); priming is counted by the primer;
/// verification, create and delete are counted on the wire; and whatever the wire saw beyond the
/// slices' counts is SDK retries. No count comes from the spec.
/// </summary>
public static class TransactionCounts
{
    public static IReadOnlyList<TransactionLine> ForTable(TableInsertSpec spec, IReadOnlyList<SliceResult> slices, VerificationResult verified)
    {
        bool batched = spec.BatchSize > 1;
        long writes = slices.Sum(s => s.Counts.Operations + s.WarmupOperations);
        var r = Sum(slices);
        var lines = new List<TransactionLine>
        {
            new(batched ? "entity group transactions" : "single-entity inserts", Phases.Run, BilledAs.TableTransaction, writes)
            {
                Entities = batched ? slices.Sum(s => s.UnitsAttempted) : null,
                Failed = slices.Sum(s => s.Counts.Failed),
            },
        };
        // Batched priming is entity group transactions, its probe one of a single entity; unbatched, single inserts and deletes and a point read.
        Add(lines, new(batched ? "priming transactions (batch inserted, then deleted)" : "priming inserts, deletes and probe", Phases.Priming,
            BilledAs.TableTransaction, r.PrimingWrites + r.PrimingProbes) { Entities = batched ? r.PrimingEntities + r.PrimingProbes : null });
        if (verified.Requests is { } v)
        {
            Add(lines, new("query pages (keys only, up to 1,000 rows each)", Phases.Verification, BilledAs.TableTransaction, v.Queries));
            Add(lines, new("deletes of rows other executions left", Phases.Verification, BilledAs.TableTransaction, v.Deletes) { Entities = v.DeletedEntities });
        }
        Add(lines, new("SDK retries", Phases.Run, BilledAs.TableTransaction, r.Wire - writes - r.PrimingWrites - r.PrimingProbes));
        return lines;
    }

    public static IReadOnlyList<TransactionLine> ForBlob(IReadOnlyList<SliceResult> slices, VerificationResult verified)
    {
        long sent = slices.Sum(s => s.Counts.Operations + s.WarmupOperations);
        long failed = slices.Sum(s => s.Counts.Failed);
        var r = Sum(slices);
        var lines = new List<TransactionLine>
        {
            new("Put Block", Phases.Run, BilledAs.BlobWrite, sent - r.BlockLists) { Failed = failed - r.BlockListsFailed },
            new("Put Block List", Phases.Run, BilledAs.BlobWrite, r.BlockLists) { Failed = r.BlockListsFailed },
        };
        Add(lines, new("priming Put Block and Put Block List", Phases.Priming, BilledAs.BlobWrite, r.PrimingWrites));
        Add(lines, new("priming probe (Get Container Properties)", Phases.Priming, BilledAs.BlobOther, r.PrimingProbes));
        Add(lines, new("priming Delete Blob", Phases.Priming, BilledAs.Free, r.PrimingDeletes));
        if (verified.Requests is { } v)
        {
            Add(lines, new("List Blobs pages", Phases.Verification, BilledAs.BlobListOrCreateContainer, v.Queries));
            Add(lines, new("content reads (Get Blob)", Phases.Verification, BilledAs.BlobRead, v.Reads));
            Add(lines, new("Delete Blob of blobs other executions left", Phases.Verification, BilledAs.Free, v.Deletes));
        }
        Add(lines, new("SDK retries", Phases.Run, BilledAs.BlobWrite, r.Wire - sent - r.PrimingWrites - r.PrimingProbes - r.PrimingDeletes));
        return lines;
    }

    /// <summary>The step's Create Table / Create Container and Delete Table / Delete Container, added once the step has done them.</summary>
    public static WorkloadSummary WithTargets(WorkloadSummary w, TargetRequests? created, TargetRequests? deleted)
    {
        bool table = w.Entities is not null;
        var lines = w.Transactions.ToList();
        if (created is not null)
        {
            Add(lines, table ? new("Create Table", Phases.Setup, BilledAs.TableTransaction, created.Tables)
                : new("Create Container", Phases.Setup, BilledAs.BlobListOrCreateContainer, created.Containers));
        }
        if (deleted is not null)
        {
            Add(lines, table ? new("Delete Table", Phases.Cleanup, BilledAs.TableTransaction, deleted.Tables)
                : new("Delete Container", Phases.Cleanup, BilledAs.Free, deleted.Containers));
        }
        return w with { Transactions = lines };
    }

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
