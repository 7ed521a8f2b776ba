
namespace StorageBench.Engine.Capacity;

/// <summary>What to plan for.</summary>
/// <param name="Target">Entities/s (table) or MB/s of committed blobs (blob).</param>
/// <param name="Unit"><see cref="CapacityPlanner.EntitiesPerSecond"/> or <see cref="CapacityPlanner.MegabytesPerSecond"/>.</param>
/// <param name="P99Ms">Only operating points whose measured p99 is at most this qualify.</param>
/// <param name="EntitySizeBytes">Only steps that wrote entities of this size qualify; default: the size of the best step.</param>
/// <param name="InstanceMemoryMb">Flex Consumption instance memory: 512, 2048 or 4096 MB.</param>
/// <param name="DurationSeconds">How long the written spec runs; default: as long as the operating point's step ran.</param>
/// <param name="Workload">The workload to plan; default: the first whose capacity model plans in <paramref name="Unit"/> (<see cref="CapacityPlanner.Choose"/>).</param>
public sealed record PlanRequest(double Target, string Unit, double? P99Ms = null, int? EntitySizeBytes = null, int InstanceMemoryMb = 2048, double? DurationSeconds = null,
    string? Workload = null);

/// <summary>One limit the plan respects: how many units it uses, what one unit takes, and where that figure comes from.</summary>
/// <param name="Basis">"measured: …", "documented: …" or "assumed: …".</param>
public sealed record PlanLimit(string Name, double Units, double PerUnit, string Basis)
{
    /// <summary>What the plan's units of this kind take together.</summary>
    public double Capacity => Units * PerUnit;
}

/// <summary>The money side of a plan, per hour of running at the target, in the price table's currency.</summary>
/// <param name="ComputePerHour">Null when the price table has no Flex Consumption line.</param>
/// <param name="GigabytesReadOutPerHour">Bytes a download plan reads out of the accounts in an hour (0 for writes and table reads).</param>
/// <param name="EgressPerHour">Those bytes at the price table's dataTransferOutPerGb; null when it has none.</param>
public sealed record PlanCost(string Currency, string PriceTable, double RequestsPerHour, double RequestsCostPerHour, double? ComputePerHour,
    double GigabytesWrittenPerHour, double StoragePerMonthOfOneHour, double GigabytesReadOutPerHour = 0, double? EgressPerHour = null)
{
    public double TotalPerHour => RequestsCostPerHour + (ComputePerHour ?? 0) + (EgressPerHour ?? 0);
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
