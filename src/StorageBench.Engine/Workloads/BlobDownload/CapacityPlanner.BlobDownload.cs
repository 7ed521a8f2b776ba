using StorageBench.Engine.Cost;
using StorageBench.Engine.Workloads;

namespace StorageBench.Engine.Capacity;

/// <summary>The download plan: slices, blobs and accounts for the MB/s read back, within the documented per-blob request and account egress targets.</summary>
public static partial class CapacityPlanner
{
    private static readonly RateUnit MegabytesRead = new(r => $"{r:N1} {BlobDownloadRoom.KindOf.RateUnit}", "slices or accounts", BlobDownloadRoom.KindOf.UnitSingular);

    internal static PlanOutcome PlanBlobDownload(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        var d = op.Spec.BlobDownload!;
        double target = request.Target;
        bool azure = op.TargetKind != "Azurite";
        string documented = $"documented: {targets.File}, read {targets.ReadOn}";
        var notes = new List<string>();
        // One Get Blob reads a range, or a whole blob.
        double requestMb = (d.RangeSizeBytes > 0 ? d.RangeSizeBytes : d.BlobSizeBytes) / 1e6;
        string requestWord = d.RangeSizeBytes > 0 ? $"{requestMb:0.###} MB ranges" : $"whole {requestMb:0.###} MB blobs";

        double perSlice = op.Rate / op.Slices;
        string sliceBasis = $"measured: {op.Label} ({op.Rate:N1} MB/s over {op.Slices} slice(s) at {d.ParallelRanges} Get Blob in flight each)";
        // With ranges a slice reads one blob at a time; whole, each of its loops reads its own blob.
        int blobsPerSlice = d.RangeSizeBytes > 0 ? 1 : d.ParallelRanges;
        double perBlob = targets.BlobRequestsPerSecond * requestMb;
        if (azure && perSlice > blobsPerSlice * perBlob)
        {
            perSlice = blobsPerSlice * perBlob;
            sliceBasis = $"{documented} ({targets.BlobRequestsPerSecond:N0} requests/s per blob × {requestWord}, {blobsPerSlice} blob(s) at a time per slice; measured more: {op.Label})";
        }
        (double, string)? documentedAccount = null;
        if (azure)
        {
            double byRequests = targets.AccountRequestsPerSecond * requestMb, byEgress = targets.AccountEgressGbps * 1e3 / 8;
            documentedAccount = (Math.Min(byRequests, byEgress), documented + (byEgress <= byRequests
                ? $" ({targets.AccountEgressGbps:0.#} Gbps egress)"
                : $" ({targets.AccountRequestsPerSecond:N0} requests/s of {requestWord})"));
        }
        var (z, refusal) = Size(MegabytesRead, sustained, op, request, targets, documented, perSlice, documentedAccount);
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
        // The slices cycle through every blob, so on Azure the reads spread over them: enough blobs that none passes its request target.
        int blobs = Math.Max(d.BlobCount, slices);
        if (azure)
        {
            blobs = Math.Max(blobs, (int)Math.Ceiling(target / perBlob));
            limits.Add(new("blobs", blobs, perBlob, $"{documented} ({targets.BlobRequestsPerSecond:N0} requests/s per blob × {requestWord}); that the slices' reads spread evenly over the blobs is assumed"));
        }
        z.AddDriverCores(limits, notes);
        if (blobs > 100_000)
        {
            return Refuse($"{target:N1} MB/s needs {blobs:N0} blobs, more than the 100,000 a spec may seed");
        }
        if (accounts > 1)
        {
            notes.Add($"spreads over {accounts} storage accounts: {target:N1} MB/s is more than one account serves ({z.PerAccount:N1} MB/s, {z.AccountBasis}); " +
                $"name them in STORAGEBENCH_TARGET_BLOB_ENDPOINTS (slice i reads from account i mod {accounts}); that accounts add up is assumed, not measured");
        }
        if (!azure)
        {
            notes.Add("Azurite has no documented targets: its slices and account are sized from what Azurite was measured to do");
        }
        notes.Add("blob downloads have no open-loop rate: the written spec runs its slices closed loop, so its run may exceed the target");
        double duration = Duration(request, op, d);
        var spec = op.Spec with
        {
            Scenario = Scenario(op.Spec.Scenario),
            BlobDownload = d with
            {
                Slices = slices,
                BlobCount = blobs,
                DurationSeconds = duration,
                WarmupSeconds = d.WarmupSeconds < duration ? d.WarmupSeconds : 0,
                WarmupOperations = 0,
            },
        };
        double gigabytesOutPerHour = target * 3600 / 1e3;
        return Finish(new CapacityPlan
        {
            Request = request,
            Workload = BlobDownloadRoom.WorkloadName,
            TargetKind = op.TargetKind,
            OperatingPoint = op,
            Partitions = 0,
            Slices = slices,
            InFlightPerSlice = d.ParallelRanges,
            Accounts = accounts,
            Instances = z.Instances,
            DriverCores = z.Cores,
            Limits = limits,
            Bottleneck = limits.MinBy(l => l.Capacity)!,
            ExpectedThroughput = target,
            Cost = Cost(prices, target / requestMb * 3600, prices.BlobReadOperationsPer10k, z.Instances, request.InstanceMemoryMb, 0, prices.BlobStoragePerGbMonth, gigabytesOutPerHour),
            Notes = notes,
            Spec = spec,
        });
    }
}
