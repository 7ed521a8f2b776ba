using System.Text.Json.Serialization;

namespace StorageBench.Engine.Statistics;

/// <summary>
/// A run's status: the one word every surface (CLI, runs API, dashboard) shows for a run. Pending and Running while it
/// goes; one of the other four once it ended (summary.json, the results table). The orchestration's own runtime status
/// (Completed also for a canceled or failed run, which the orchestration ended normally) is never shown as the run's.
/// </summary>
public static class RunStatus
{
    public const string Pending = "Pending";
    public const string Running = "Running";
    public const string Completed = "Completed";
    public const string Failed = "Failed";
    public const string Canceled = "Canceled";
    public const string Invalid = "Invalid";
}

/// <summary>The summary.json contract (docs/summary.md). Also the HTTP status payload's result.</summary>
public sealed record RunSummary
{
    public required string RunId { get; init; }
    public required string Status { get; init; }
    public required DateTime StartedUtc { get; init; }
    public required DateTime EndedUtc { get; init; }
    public RunSpec? Spec { get; init; }
    public required RunEnvironment Environment { get; init; }
    public IReadOnlyList<WorkloadSummary> Workloads { get; init; } = [];
    /// <summary>Why the run is not Completed (validation errors, activity failures).</summary>
    public IReadOnlyList<string> Errors { get; init; } = [];
    /// <summary>
    /// What went differently without costing a measured figure, so the status stands: a slice that ran again (a worker lost
    /// or a run resumed), bookkeeping that missed (progress, cancel polls, slice rows), storage that could not be counted.
    /// </summary>
    public IReadOnlyList<string> Notes { get; init; } = [];
    /// <summary>Each workload of the spec (each step's) that has no figures, and why: with <see cref="Workloads"/>, every one the spec asked for.</summary>
    public IReadOnlyList<UnmeasuredWorkload> Unmeasured { get; init; } = [];
    /// <summary>Set when the spec asked for a saturation search.</summary>
    public SaturationResult? Saturation { get; init; }
    /// <summary>Set for runs checked against their trailing baseline (the nightly run).</summary>
    public RegressionVerdict? Regression { get; init; }
    /// <summary>Instance ids of the run's steps (sub-orchestrations): one for a plain run, one per value for a sweep or search.</summary>
    public IReadOnlyList<string> Steps { get; init; } = [];
    /// <summary>What the workloads' requests cost, from a price table: put together with the summary, not stored by the orchestration.</summary>
    public CostEstimate? Cost { get; init; }
    /// <summary>Requests sent to the target accounts outside the measured path, by phase; null for a run that never started (Invalid) or was lost.</summary>
    public TargetSideRequests? TargetSideRequests { get; init; }
}

/// <summary>A workload of the spec (of one step, for a sweep) with no figures, and why: "not started: the run was canceled at 11:28:40Z".</summary>
public sealed record UnmeasuredWorkload(string Workload, string? StepParameter, double? StepValue, string Reason);

/// <summary>
/// Where the search ended. HighestSustainable is the highest useful value: the last step within the bounds whose
/// throughput still grew with the load (null when the first step already broke a bound); Knee is the first value
/// past it: a bound broken, or throughput flat while the load grew (null when no rule stopped the search).
/// </summary>
public sealed record SaturationResult(string Parameter, double? HighestSustainableValue, double? ThroughputAtHighest, string ThroughputUnit,
    double? KneeValue, string Reason)
{
    /// <summary>
    /// Which rule ended the search: "throughput-growth" (past the knee: the load only queued), "failed-share",
    /// "p99", "no-success", "max-reached" (no rule stopped it), or "step-failed" (a step could not run).
    /// </summary>
    public string? StoppedBy { get; init; }

    /// <summary>Throughput of the knee step (the first past it), in <see cref="ThroughputUnit"/>.</summary>
    public double? ThroughputAtKnee { get; init; }
}

/// <param name="TargetKind">Azurite or AzureStorage.</param>
/// <param name="Instances">Distinct machines that ran slices.</param>
/// <param name="Host">What hosted the orchestration (local CLI, Azure Functions).</param>
/// <param name="TargetAccounts">Storage accounts the slices were spread over.</param>
public sealed record RunEnvironment(string TargetKind, int Instances, string Host, string Machine, string Runtime, int ProcessorCount, int TargetAccounts = 1)
{
    /// <summary>Distinct worker processes that ran slices (`storagebench worker`s, the CLI's own, Function App instances' workers); 0 in rows from before it was kept.</summary>
    public int Workers { get; init; }

    /// <summary>The driver machine's 1-minute load average when the run started and when it ended (null off Linux).</summary>
    public double? LoadAverageStart { get; init; }
    public double? LoadAverageEnd { get; init; }
    /// <summary>
    /// Share (0–1) of the machine's CPU, all cores, that processes other than the driver used from start to end
    /// (/proc/stat minus the driver's own CPU; an Azurite on the same machine counts as other). Null off Linux.
    /// </summary>
    public double? OtherProcessesCpuShare { get; init; }
    /// <summary>The tool's version and the git commit it was built from (null when built outside a checkout).</summary>
    public string? ToolVersion { get; init; }
    public string? ToolCommit { get; init; }
    /// <summary>Azurite's version as its Server header gives it (e.g. "Azurite-Blob/3.35.0"); null for a real account.</summary>
    public string? EmulatorVersion { get; init; }
    /// <summary>The Azure SDK assemblies the driver ran, name → version (Azure.Core, Azure.Data.Tables, Azure.Storage.Blobs, …).</summary>
    public IReadOnlyDictionary<string, string>? AzureSdk { get; init; }
    /// <summary>The driver's garbage collector: "server" or "workstation", "concurrent" or "non-concurrent".</summary>
    public string? GarbageCollector { get; init; }
}

/// <summary>
/// Per-bucket rates (entities/s or MB/s) over the all-slices-active window: their mean, how far they
/// move from one second to the next, and how many buckets there were (one second each, wider only past
/// 1,024 s of run).
/// </summary>
/// <param name="SecondToSecondDeviation">
/// σ from successive differences, √(Σ(xᵢ₊₁ − xᵢ)² / 2(n − 1)): the rates' noise without the run's slow
/// drift (Azurite slows as its store fills, from ~15,000 to ~5,000 entities/s over 30 s here), which a
/// plain standard deviation would count as noise although every run of the spec drifts alike.
/// </param>
public sealed record RateSpread(double Mean, double SecondToSecondDeviation, int Samples)
{
    /// <summary>The standard error of the mean rate as a share of it (σ / √n / mean); null for a zero mean.</summary>
    public double? RelativeStandardError() => Mean > 0 && Samples > 0 ? SecondToSecondDeviation / Math.Sqrt(Samples) / Mean : null;
}

/// <summary>Slowest, median and fastest slice rate (entities/s or MB/s over each slice's own window), and the latest start.</summary>
public sealed record SliceSpread(double MinUnitsPerSecond, double MedianUnitsPerSecond, double MaxUnitsPerSecond, double MaxStartLagSeconds)
{
    /// <summary>Slices whose accepted execution was a re-run (an earlier one was lost: its worker stopped, or the run was resumed).</summary>
    public int RerunSlices { get; init; }

    /// <summary>Slices that started late because their worker ran other slices of the step up to its activity limit (not the start delay's doing).</summary>
    public int WaitedSlices { get; init; }

    /// <summary>The latest start of the slices that ran once and did not wait for a worker: what startDelaySeconds governs.</summary>
    public double FirstRunsMaxStartLagSeconds { get; init; }
}

/// <param name="UnitsPerSecond">Entities/s (table) or MB/s (blob) over the slice's own measured window.</param>
/// <param name="StartLagSeconds">How late the slice passed the synchronized start; above a few ms, raise startDelaySeconds.</param>
public sealed record SliceSummary(int SliceIndex, int TargetAccount, string Host, long Operations, long Succeeded, long Throttled, long Failed, long Units,
    double DurationSeconds, double UnitsPerSecond, double StartLagSeconds, LatencySummary LatencyMs)
{
    /// <summary>The slice execution these figures are from.</summary>
    public string? Attempt { get; init; }

    /// <summary>The worker (machine/process id) that ran it: a Function App instance, or a local `storagebench run` or `worker` process.</summary>
    public string? Worker { get; init; }
}

/// <summary>What priming met: requests, throttled, failed (throttled included).</summary>
public sealed record PrimingOutcomes(long Requests, long Throttled, long Failed);

/// <summary>Rates over a window. Decimal units: 1 KB = 1,000 bytes, 1 MB = 10^6 bytes, Mbps = 10^6 bits/s.</summary>
public sealed record Throughput(double OperationsPerSecond, double? EntitiesPerSecond, double? KilobytesPerSecond, double? MegabytesPerSecond, double? MegabitsPerSecond);

/// <summary>Requests whose latency fell in [FromMs, ToMs).</summary>
public sealed record LatencyBin(double FromMs, double ToMs, long Count);

/// <summary>
/// Latency of successful requests, milliseconds, from the merged histogram of all slices. Of no samples every figure is null,
/// never 0, and summary.json writes the nulls: a reader sees the figure does not exist rather than miss it.
/// </summary>
public sealed record LatencySummary(long Samples,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? Min,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? P50,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? Mean,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? P70,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? P80,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? P90,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? P95,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? P99,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? P999,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? Max);

/// <summary>
/// How late an open loop's measured requests went out after their slots in its schedule: p99 and max (null of no request),
/// how many went out more than <see cref="LateMs"/> late, and the slots never sent (due before the slice stopped, while every
/// loop was busy). Any of those means the loop could not keep its rate: its latency includes the wait, its service time does not.
/// </summary>
public sealed record ScheduleLag(long Requests, [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? P99Ms,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? MaxMs, long LateRequests, long DroppedOperations)
{
    public const double LateMs = 1;

    [JsonIgnore]
    public bool FellBehind => LateRequests > 0 || DroppedOperations > 0;
}

/// <summary>Ground truth: what storage holds against what the run reported as succeeded.</summary>
public sealed record VerificationResult(bool Matched, long Expected, long Actual, string Unit, string Detail)
{
    /// <summary>Entities or blobs written by a slice execution whose result was not used (a repeated activity); deleted, not counted.</summary>
    public long Discarded { get; init; }

    /// <summary>What verifying sent, counted on the wire; null when it could not run.</summary>
    public VerificationRequests? Requests { get; init; }

    /// <summary>Why storage could not be checked at all; null when it was. Such a result is "not verified", never a NO (0/0).</summary>
    public string? NotVerifiedReason { get; init; }

    public const string NotVerifiedWords = "not verified";

    public static VerificationResult NotVerified(string why) => new(false, 0, 0, "", $"{NotVerifiedWords}: {why}") { NotVerifiedReason = why };

    /// <summary>Verification met storage it could not read (dead, slow past its deadline, refusing): the measured figures stand, unverified.</summary>
    public static VerificationResult StorageUnreadable(string failure) => NotVerified($"storage could not be read after the run ({failure})");
}

/// <summary>
/// Requests ground truth sent, SDK retries included: query pages (table, keys only, up to 1,000 rows each)
/// or List Blobs pages; content reads (blob, verifyContent); and deletes of what other executions
/// left (table: entity group transactions of <paramref name="DeletedEntities"/> rows; blob: Delete Blob).
/// </summary>
public sealed record VerificationRequests(long Queries, long Reads, long Deletes, long DeletedEntities)
{
    /// <summary>Page blob: of <see cref="Reads"/>, the Get Page Ranges requests (one per blob: were its every page written).</summary>
    public long PageRangeReads { get; init; }
}
