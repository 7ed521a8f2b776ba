using StorageBench.Engine.Cost;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads;

namespace StorageBench.Engine.Capacity;

/// <summary>What to plan for.</summary>
/// <param name="Target">Entities/s (table) or MB/s of committed blobs (blob).</param>
/// <param name="Unit"><see cref="CapacityPlanner.EntitiesPerSecond"/> or <see cref="CapacityPlanner.MegabytesPerSecond"/>.</param>
/// <param name="P99Ms">Only operating points whose measured p99 is at most this qualify.</param>
/// <param name="EntitySizeBytes">Only steps that wrote entities of this size qualify; default: the size of the best step.</param>
/// <param name="InstanceMemoryMb">Flex Consumption instance memory: 512, 2048 or 4096 MB.</param>
/// <param name="DurationSeconds">How long the written spec runs; default: as long as the operating point's step ran.</param>
public sealed record PlanRequest(double Target, string Unit, double? P99Ms = null, int? EntitySizeBytes = null, int InstanceMemoryMb = 2048, double? DurationSeconds = null);

/// <summary>One limit the plan respects: how many units it uses, what one unit takes, and where that figure comes from.</summary>
/// <param name="Basis">"measured: …", "documented: …" or "assumed: …".</param>
public sealed record PlanLimit(string Name, double Units, double PerUnit, string Basis)
{
    /// <summary>What the plan's units of this kind take together.</summary>
    public double Capacity => Units * PerUnit;
}

/// <summary>The money side of a plan, per hour of running at the target, in the price table's currency.</summary>
/// <param name="ComputePerHour">Null when the price table has no Flex Consumption line.</param>
public sealed record PlanCost(string Currency, string PriceTable, double RequestsPerHour, double RequestsCostPerHour, double? ComputePerHour,
    double GigabytesWrittenPerHour, double StoragePerMonthOfOneHour)
{
    public double TotalPerHour => RequestsCostPerHour + (ComputePerHour ?? 0);
}

/// <summary>A plan: the units, the limit that binds first, the latency measured at the operating point, the cost, and the spec that carries it out.</summary>
public sealed record CapacityPlan
{
    public required PlanRequest Request { get; init; }
    public required string Workload { get; init; }
    public required string TargetKind { get; init; }
    /// <summary>The step whose configuration the plan scales out, and whose latency it expects.</summary>
    public required MeasuredStep OperatingPoint { get; init; }
    /// <summary>Table only (a blob is its own partition): 0 for blobs.</summary>
    public required int Partitions { get; init; }
    public required int Slices { get; init; }
    /// <summary>Requests in flight per slice (tableInsert.concurrency, or blobUpload.parallelBlocks).</summary>
    public required int InFlightPerSlice { get; init; }
    public required int Accounts { get; init; }
    public required int Instances { get; init; }
    /// <summary>Driver CPU cores the target needs (at the planned utilization); null when no step recorded driver CPU.</summary>
    public required double? DriverCores { get; init; }
    public required IReadOnlyList<PlanLimit> Limits { get; init; }
    /// <summary>The limit with the least room above the target: the one that binds first as the rate grows.</summary>
    public required PlanLimit Bottleneck { get; init; }
    /// <summary>Throughput the plan schedules (the open-loop rate for tables) and the highest its units allow.</summary>
    public required double ExpectedThroughput { get; init; }
    public required PlanCost Cost { get; init; }
    public required IReadOnlyList<string> Notes { get; init; }
    public required RunSpec Spec { get; init; }
}

/// <summary>A plan, or why the measurements cannot support one.</summary>
public sealed record PlanOutcome(CapacityPlan? Plan, string? Refusal);

/// <summary>
/// From measured steps to a plan. Pure: the same steps, targets and prices give the same plan. It scales out what was
/// measured — one slice at its concurrency, one partition, one account, one driver core — and, for Azure Storage,
/// respects the documented targets; it never extrapolates a unit's capacity past what was measured or documented.
/// </summary>
public static class CapacityPlanner
{
    public const string EntitiesPerSecond = "entities/s";
    public const string MegabytesPerSecond = "MB/s";

    /// <summary>A step counts as sustained when no more than this share of its requests failed (the default maxUnstoredShare).</summary>
    public const double MaxFailedShare = 0.01;

    /// <summary>Assumed: drive the driver's cores at most this busy, so a slice keeps its schedule.</summary>
    public const double DriverCpuUtilization = 0.7;

    /// <summary>Assumed: in-flight slots per slice for twice the requests the measured p99 keeps in flight, so an open loop can catch up after a stall.</summary>
    public const double InFlightHeadroom = 2;

    public static PlanOutcome Plan(IReadOnlyList<MeasuredStep> steps, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        bool table = request.Unit == EntitiesPerSecond;
        string workload = table ? TableInsertWorkload.Name : BlobUploadWorkload.Name;
        var measured = steps.Where(s => s.Workload == workload).ToList();
        if (measured.Count == 0)
        {
            return Refuse($"no {workload} step among the {steps.Count} step(s) read: a plan in {request.Unit} needs a measured {workload} run");
        }
        var sustained = measured.Where(s => !s.BeyondKnee && s.Rate > 0 && s.FailedShare <= MaxFailedShare).ToList();
        if (sustained.Count == 0)
        {
            return Refuse($"none of the {measured.Count} {workload} step(s) sustained its rate: each failed more than {MaxFailedShare * 100:0}% of its requests, stored nothing, or was past a saturation knee");
        }
        var kinds = sustained.Select(s => s.TargetKind).Distinct().ToList();
        if (kinds.Count > 1)
        {
            return Refuse($"the steps were measured against {string.Join(" and ", kinds)}: plan from runs against one kind of target (their limits differ)");
        }
        if (table)
        {
            int size = request.EntitySizeBytes ?? sustained.MaxBy(s => s.Rate)!.Spec.TableInsert!.EntitySizeBytes;
            var sized = sustained.Where(s => s.Spec.TableInsert!.EntitySizeBytes == size).ToList();
            if (sized.Count == 0)
            {
                return Refuse($"no sustained step wrote entities of {size:N0} bytes (measured: {string.Join(", ", sustained.Select(s => s.Spec.TableInsert!.EntitySizeBytes).Distinct().Order().Select(b => $"{b:N0}"))} bytes); " +
                    "a plan does not extrapolate across entity sizes: measure that size first");
            }
            sustained = sized;
        }
        if (request.P99Ms is { } bound)
        {
            var fast = sustained.Where(s => s.LatencyP99Ms <= bound).ToList();
            if (fast.Count == 0)
            {
                var best = sustained.MinBy(s => s.LatencyP99Ms)!;
                return Refuse($"no measured operating point had p99 within {bound:0.#} ms: the lowest was {best.LatencyP99Ms:0.#} ms ({best.Label}); more units do not lower a request's latency");
            }
            sustained = fast;
        }
        // The operating point: the step whose slices each sustained the most, at the lowest concurrency for a tie.
        var op = sustained.OrderByDescending(s => s.Rate / s.Slices).ThenBy(InFlight).First();
        return table ? PlanTable(sustained, op, request, targets, prices) : PlanBlob(sustained, op, request, targets, prices);
    }

    private static PlanOutcome PlanTable(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        var t = op.Spec.TableInsert!;
        double target = request.Target;
        bool azure = op.TargetKind != "Azurite";
        string documented = $"documented: {targets.File}, read {targets.ReadOn}";
        var notes = new List<string>();

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
        int accounts = z.Accounts, slices = z.Slices;
        int partitions = Math.Max((int)Math.Ceiling(target / perPartition), t.PartitionCount);
        double opsPerSlice = target / t.BatchSize / slices;
        int inFlight = Math.Min(1_024, Math.Max(t.Concurrency, (int)Math.Ceiling(InFlightHeadroom * opsPerSlice * op.LatencyP99Ms / 1000)));
        if (partitions > 100_000)
        {
            return Refuse($"{target:N0} entities/s needs {partitions:N0} partitions, more than the 100,000 a spec may name");
        }

        var limits = new List<PlanLimit>
        {
            new("slices", slices, perSlice, $"measured: {op.Label} ({op.Rate:N0} entities/s over {op.Slices} slice(s) at {t.Concurrency} in flight each)"),
            new("partitions", partitions, perPartition, partitionBasis),
            new("accounts", accounts, z.PerAccount, z.AccountBasis),
        };
        z.AddDriverCores(limits, notes);
        if (accounts > 1)
        {
            notes.Add($"spreads over {accounts} storage accounts: {target:N0} entities/s is more than one account takes ({z.PerAccount:N0} entities/s, {z.AccountBasis}); " +
                $"name them in STORAGEBENCH_TARGET_TABLE_ENDPOINTS (slice i writes to account i mod {accounts}); that accounts add up is assumed from the per-account targets, not measured");
        }
        if (azure && measuredPerPartition > targets.TableEntitiesPerSecondPerPartition)
        {
            notes.Add($"a partition was measured at {measuredPerPartition:N0} entities/s ({bestPartition.Label}), above the documented {targets.TableEntitiesPerSecondPerPartition:N0}: the plan keeps to the documented target");
        }
        if (!azure)
        {
            notes.Add("Azurite has no documented targets: its partitions, slices and account are sized from what Azurite was measured to do; Function App instances and compute cost are what the same driver CPU would need on Flex Consumption");
        }

        double duration = Duration(request, op, t);
        if (request.DurationSeconds is null && t.DurationSeconds > 0 && duration > t.DurationSeconds)
        {
            notes.Add($"the spec runs {duration:0} s where the measured step ran {t.DurationSeconds:0} s, so that its last request's latency (p50 {op.LatencyP50Ms:0} ms) is at most " +
                $"{100 / DrainWindows:0}% of its measured window" + (azure ? "" : "; Azurite slows as a table fills, so a run longer than measured is an extrapolation"));
        }
        double requestsPerSecond = prices.EntityGroupTransactionBilling == PriceTable.PerEntity || t.BatchSize == 1 ? target : target / t.BatchSize;
        var spec = op.Spec with
        {
            Scenario = Scenario(op.Spec.Scenario),
            BlobUpload = null,
            TableInsert = t with
            {
                PartitionCount = partitions,
                Slices = slices,
                Concurrency = inFlight,
                TargetOperationsPerSecond = Math.Round(target / t.BatchSize, 3),
                DurationSeconds = duration,
                WarmupSeconds = t.WarmupSeconds < duration ? t.WarmupSeconds : 0,
                EntityCount = Math.Max(t.EntityCount, slices),
            },
        };
        return Finish(new CapacityPlan
        {
            Request = request,
            Workload = TableInsertWorkload.Name,
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
            Cost = Cost(prices, requestsPerSecond * 3600, prices.TableTransactionsPer10k, z.Instances, request.InstanceMemoryMb,
                target * t.EntitySizeBytes * 3600 / 1e9, prices.TableStoragePerGbMonth),
            Notes = notes,
            Spec = spec,
        });
    }

    private static PlanOutcome PlanBlob(List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
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
            TableInsert = null,
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

    /// <summary>How a plan writes its rate and names what it scales out: all that differs between tables and blobs in <see cref="Size"/>.</summary>
    private sealed record RateUnit(Func<double, string> Format, string ScalesOut, string Per);

    private static readonly RateUnit Entities = new(r => $"{r:N0} entities/s", "slices, partitions or accounts", "entity");
    private static readonly RateUnit Megabytes = new(r => $"{r:N1} MB/s", "slices or accounts", "MB");

    /// <summary>The units tables and blobs size alike: storage accounts, Function App instances, and slices spread evenly over the accounts.</summary>
    /// <param name="DriverCores">Null when no step recorded driver CPU.</param>
    private sealed record Sizing(double PerAccount, string AccountBasis, int Accounts, int Instances, int Slices, double? Cores, PlanLimit? DriverCores)
    {
        /// <summary>The driver-cores limit, or, without driver CPU, a note that instances were sized by slices alone.</summary>
        public void AddDriverCores(List<PlanLimit> limits, List<string> notes)
        {
            if (DriverCores is { } l)
            {
                limits.Add(l);
            }
            else
            {
                notes.Add("driver CPU was not recorded by any step read: Function App instances are sized by slices alone (assumed)");
            }
        }
    }

    /// <summary>
    /// Sizes accounts, instances and slices for the target, or refuses with the reason. The same for tables and blobs:
    /// only the unit and, on Azure, the documented per-account figure (<paramref name="documentedAccount"/>) differ.
    /// </summary>
    /// <param name="documentedAccount">What one Azure account takes and why; null on Azurite, which has no documented targets.</param>
    private static (Sizing? Sizing, string? Refusal) Size(RateUnit unit, List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request,
        ScalabilityTargets targets, string documented, double perSlice, (double PerAccount, string Basis)? documentedAccount)
    {
        double target = request.Target;
        double perAccount;
        string accountBasis;
        if (documentedAccount is { } d)
        {
            (perAccount, accountBasis) = d;
        }
        else
        {
            // Azurite is one process: more of anything on it shares the ceiling measured, so a target above it is refused, not spread.
            var bestAccount = sustained.MaxBy(s => s.Rate / s.TargetAccounts)!;
            perAccount = bestAccount.Rate / bestAccount.TargetAccounts;
            accountBasis = $"measured: {bestAccount.Label}, the highest rate against one Azurite";
            if (target > perAccount)
            {
                return (null, $"{unit.Format(target)} is beyond the highest rate measured against Azurite, {unit.Format(perAccount)} ({bestAccount.Label}); " +
                    $"Azurite is one local process, so more {unit.ScalesOut} on it share that ceiling: nothing measured supports this target");
            }
        }

        var cpu = CpuOf(op, sustained);
        var instanceCores = targets.CoresPerInstance(request.InstanceMemoryMb);
        if (instanceCores is null)
        {
            return (null, $"instance memory {request.InstanceMemoryMb} MB is not a Flex Consumption size (512, 2048 or 4096 MB)");
        }
        double? unitsPerCore = cpu is { } c ? 1e6 / c.MicrosecondsPerUnit * DriverCpuUtilization : null;
        double? cores = unitsPerCore is { } u ? target / u : null;

        // At least one slice per instance, and a whole number of slices per account (slice i writes to account i mod accounts).
        int accounts = (int)Math.Ceiling(target / perAccount);
        int instances = Math.Max(1, cores is { } needed ? (int)Math.Ceiling(needed / instanceCores.Value) : 1);
        int slices = RoundUp(Math.Max(Math.Max((int)Math.Ceiling(target / perSlice), instances), accounts), accounts);

        if (Beyond(accounts, targets.AccountsPerRegion, "storage accounts", "accounts per region per subscription (" + documented + ")") is { } a)
        {
            return (null, a);
        }
        if (Beyond(slices, ServiceLimits.MaxSlices, "slices", "slices one run fans out per workload") is { } s)
        {
            return (null, s);
        }
        if (Beyond(instances, targets.FlexConsumptionMaxInstances, $"Flex Consumption instances of {request.InstanceMemoryMb} MB", "instances one app scales out to (" + documented + ")") is { } i)
        {
            return (null, i);
        }

        var driverCores = unitsPerCore is { } perCore
            ? new PlanLimit("driver cores", instances * instanceCores.Value, perCore,
                $"measured: {cpu!.Value.Step.Label} ({cpu.Value.MicrosecondsPerUnit:0.#} µs of driver CPU per {unit.Per}), assumed at most {DriverCpuUtilization * 100:0}% busy")
            : null;
        return (new Sizing(perAccount, accountBasis, accounts, instances, slices, cores, driverCores), null);
    }

    /// <summary>The written spec must pass the validator the run command applies, or the plan is not one.</summary>
    private static PlanOutcome Finish(CapacityPlan plan)
    {
        var errors = RunSpecValidator.Validate(plan.Spec);
        return errors.Count == 0 ? new(plan, null) : Refuse("the spec that would carry the plan out is invalid: " + string.Join("; ", errors));
    }

    private static PlanCost Cost(PriceTable prices, double requestsPerHour, double per10k, int instances, int memoryMb, double gigabytesPerHour, double perGbMonth) =>
        new(prices.Currency, prices.File, requestsPerHour, requestsPerHour / 10_000 * per10k,
            prices.FunctionsFlexConsumptionOnDemandPerGbSecond is { } perGbSecond ? instances * (memoryMb / 1024.0) * 3600 * perGbSecond : null,
            gigabytesPerHour, gigabytesPerHour * perGbMonth);

    /// <summary>Driver CPU per unit: the operating point's, else the highest any sustained step recorded (the cautious one).</summary>
    private static (MeasuredStep Step, double MicrosecondsPerUnit)? CpuOf(MeasuredStep op, List<MeasuredStep> sustained)
    {
        if (op.CpuMicrosecondsPerUnit is { } own && own > 0)
        {
            return (op, own);
        }
        var other = sustained.Where(s => s.CpuMicrosecondsPerUnit > 0).MaxBy(s => s.CpuMicrosecondsPerUnit);
        return other is null ? null : (other, other.CpuMicrosecondsPerUnit!.Value);
    }

    private static int InFlight(MeasuredStep s) => s.IsTable ? s.Spec.TableInsert!.Concurrency : s.Spec.BlobUpload!.ParallelBlocks;

    /// <summary>
    /// How long the written spec runs: as asked, else as long as the operating point's step ran, but at least long
    /// enough that the last request's latency (the step's p50) is at most 5% of the measured window: a run's rate is
    /// counted until its last request returns, so a short run at high latency could not show the rate it held.
    /// </summary>
    private static double Duration(PlanRequest request, MeasuredStep op, WorkloadSpec w) => request.DurationSeconds
        ?? Math.Max(w.DurationSeconds > 0 ? w.DurationSeconds : 30, Math.Ceiling(w.WarmupSeconds + DrainWindows * op.LatencyP50Ms / 1000));

    /// <summary>The measured window is at least this many p50 latencies long (the drain after the last send is at most 5% of it).</summary>
    public const double DrainWindows = 20;

    private static string Scenario(string measured) => (measured.Length > 58 ? measured[..58] : measured) + "-plan";

    private static int RoundUp(int value, int multiple) => (value + multiple - 1) / multiple * multiple;

    private static string? Beyond(double needed, double most, string what, string limit) =>
        needed > most ? $"the target needs {needed:N0} {what}, more than the {most:N0} {limit}: beyond what can be planned from these measurements" : null;

    private static PlanOutcome Refuse(string reason) => new(null, reason);
}
