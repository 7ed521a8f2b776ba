using StorageBench.Engine.Cost;
using StorageBench.Engine.Workloads;

namespace StorageBench.Engine.Capacity;

/// <summary>The blob plan: slices and accounts for the MB/s of committed blobs, within the documented per-blob request and account ingress targets.</summary>
public static partial class CapacityPlanner
{
    private static readonly RateUnit Megabytes = new(r => $"{r:N1} {WorkloadKind.BlobUpload.RateUnit}", "slices or accounts", WorkloadKind.BlobUpload.UnitSingular);

    internal static PlanOutcome PlanBlob(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        var b = op.Spec.BlobUpload!;
        double target = request.Target;
        bool azure = op.TargetKind != "Azurite";
        string documented = $"documented: {targets.File}, read {targets.ReadOn}";
        var notes = new List<string>();
        double blockMb = b.BlockSizeBytes / 1e6;

        // One slice writes one blob at a time: on Azure, its blob's request target caps what the slice can do.
        double perSlice = op.Rate / op.Slices;
        string sliceBasis = $"measured: {op.Label} ({op.Rate:N1} MB/s over {op.Slices} slice(s) at {b.ParallelBlocks} blocks in flight each)";
        if (azure && perSlice > targets.BlobRequestsPerSecond * blockMb)
        {
            perSlice = targets.BlobRequestsPerSecond * blockMb;
            sliceBasis = $"{documented} ({targets.BlobRequestsPerSecond:N0} requests/s per blob × {blockMb:0.###} MB blocks; measured more: {op.Label})";
        }
        (double, string)? documentedAccount = null;
        if (azure)
        {
            double byRequests = targets.AccountRequestsPerSecond * blockMb, byIngress = targets.AccountIngressGbps * 1e3 / 8;
            documentedAccount = (Math.Min(byRequests, byIngress), documented + (byIngress <= byRequests
                ? $" ({targets.AccountIngressGbps:0.#} Gbps ingress)"
                : $" ({targets.AccountRequestsPerSecond:N0} requests/s of {blockMb:0.###} MB blocks)"));
        }
        var (z, refusal) = Size(Megabytes, sustained, op, request, targets, documented, perSlice, documentedAccount);
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
        notes.Add("blob uploads have no open-loop rate: the written spec runs its slices closed loop, so its run may exceed the target");
        double duration = Duration(request, op, b);
        var spec = op.Spec with
        {
            Scenario = Scenario(op.Spec.Scenario),
            BlobUpload = b with
            {
                Slices = slices,
                DurationSeconds = duration,
                WarmupSeconds = b.WarmupSeconds < duration ? b.WarmupSeconds : 0,
                BlobCount = Math.Max(b.BlobCount, slices),
            },
        };
        double putsPerSecond = target / blockMb + target * 1e6 / b.BlobSizeBytes;   // Put Block, and one Put Block List per blob
        return Finish(new CapacityPlan
        {
            Request = request,
            Workload = BlobUploadWorkload.Name,
            TargetKind = op.TargetKind,
            OperatingPoint = op,
            Partitions = 0,
            Slices = slices,
            InFlightPerSlice = b.ParallelBlocks,
            Accounts = accounts,
            Instances = z.Instances,
            DriverCores = z.Cores,
            Limits = limits,
            Bottleneck = limits.MinBy(l => l.Capacity)!,
            ExpectedThroughput = target,
            Cost = Cost(prices, putsPerSecond * 3600, prices.BlobWriteOperationsPer10k, z.Instances, request.InstanceMemoryMb, target * 3600 / 1e3, prices.BlobStoragePerGbMonth),
            Notes = notes,
            Spec = spec,
        });
    }
}
