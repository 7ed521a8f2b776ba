using StorageBench.Engine.Cost;
using StorageBench.Engine.Workloads;

namespace StorageBench.Engine.Capacity;

/// <summary>The page blob plan: slices and accounts for the MB/s of page blobs written, within the documented per-blob request and account ingress targets.</summary>
public static partial class CapacityPlanner
{
    private static readonly RateUnit MegabytesPaged = new(r => $"{r:N1} {PageBlobUploadRoom.PageBlobUpload.RateUnit}", "slices or accounts", PageBlobUploadRoom.PageBlobUpload.UnitSingular);

    internal static PlanOutcome PlanPageBlob(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        var p = op.Spec.PageBlobUpload!;
        double target = request.Target;
        bool azure = op.TargetKind != "Azurite";
        string documented = $"documented: {targets.File}, read {targets.ReadOn}";
        var notes = new List<string>();
        // A Put Page carries at most one range (the last of a blob may be shorter: the cautious reading takes every one as full).
        double rangeMb = Math.Min(p.PageRangeBytes, p.BlobSizeBytes) / 1e6;

        // One slice writes one page blob at a time: on Azure, its blob's request target caps what the slice can do.
        double perSlice = op.Rate / op.Slices;
        string sliceBasis = $"measured: {op.Label} ({op.Rate:N1} MB/s over {op.Slices} slice(s) at {p.ParallelRanges} Put Pages in flight each)";
        if (azure && perSlice > targets.BlobRequestsPerSecond * rangeMb)
        {
            perSlice = targets.BlobRequestsPerSecond * rangeMb;
            sliceBasis = $"{documented} ({targets.BlobRequestsPerSecond:N0} requests/s per blob × {rangeMb:0.###} MB page ranges; measured more: {op.Label})";
        }
        (double, string)? documentedAccount = null;
        if (azure)
        {
            double byRequests = targets.AccountRequestsPerSecond * rangeMb, byIngress = targets.AccountIngressGbps * 1e3 / 8;
            documentedAccount = (Math.Min(byRequests, byIngress), documented + (byIngress <= byRequests
                ? $" ({targets.AccountIngressGbps:0.#} Gbps ingress)"
                : $" ({targets.AccountRequestsPerSecond:N0} requests/s of {rangeMb:0.###} MB page ranges)"));
        }
        var (z, refusal) = Size(MegabytesPaged, sustained, op, request, targets, documented, perSlice, documentedAccount);
        if (z is null)
        {
            return Refuse(refusal!);
        }
        int accounts = z.Accounts, slices = z.Slices;
        var limits = new List<PlanLimit>
        {
            new("slices", slices, perSlice, sliceBasis),
            new("accounts", accounts, z.PerAccount, z.AccountBasis),
        };
        z.AddDriverCores(limits, notes);
        if (accounts > 1)
        {
            notes.Add($"spreads over {accounts} storage accounts: {target:N1} MB/s is more than one account takes ({z.PerAccount:N1} MB/s, {z.AccountBasis}); " +
                $"name them in STORAGEBENCH_TARGET_BLOB_ENDPOINTS (slice i writes to account i mod {accounts}); that accounts add up is assumed, not measured");
        }
        if (!azure)
        {
            notes.Add("Azurite has no documented targets: its slices and account are sized from what Azurite was measured to do");
        }
        notes.Add("page blob uploads have no open-loop rate: the written spec runs its slices closed loop, so its run may exceed the target");
        double duration = Duration(request, op, p);
        var spec = op.Spec with
        {
            Scenario = Scenario(op.Spec.Scenario),
            PageBlobUpload = p with
            {
                Slices = slices,
                DurationSeconds = duration,
                WarmupSeconds = p.WarmupSeconds < duration ? p.WarmupSeconds : 0,
                WarmupOperations = 0,
                BlobCount = Math.Max(p.BlobCount, slices),
            },
        };
        // Put Page per range, and one Put Blob (the create) per blob.
        double requestsPerSecond = target * 1e6 / p.BlobSizeBytes * PageBlobUploadWorkload.RangeCount(p.BlobSizeBytes, p.PageRangeBytes) + target * 1e6 / p.BlobSizeBytes;
        return Finish(new CapacityPlan
        {
            Request = request,
            Workload = PageBlobUploadWorkload.Name,
            TargetKind = op.TargetKind,
            OperatingPoint = op,
            Partitions = 0,
            Slices = slices,
            InFlightPerSlice = p.ParallelRanges,
            Accounts = accounts,
            Instances = z.Instances,
            DriverCores = z.Cores,
            Limits = limits,
            Bottleneck = limits.MinBy(l => l.Capacity)!,
            ExpectedThroughput = target,
            Cost = Cost(prices, requestsPerSecond * 3600, prices.BlobWriteOperationsPer10k, z.Instances, request.InstanceMemoryMb, target * 3600 / 1e3, prices.BlobStoragePerGbMonth),
            Notes = notes,
            Spec = spec,
        });
    }
}
