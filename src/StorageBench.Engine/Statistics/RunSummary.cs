using System.Text.Json.Serialization;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;

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

public sealed record WorkloadSummary
{
    public required string Workload { get; init; }
    /// <summary>For sweep and saturation steps: the parameter varied and this step's value.</summary>
    public string? StepParameter { get; init; }
    public double? StepValue { get; init; }
    /// <summary>Plain words for what one operation and one latency sample are.</summary>
    public required string Measures { get; init; }
    public required int Slices { get; init; }
    public required long Operations { get; init; }
    public required long Succeeded { get; init; }
    public required long Failed { get; init; }
    public required long Throttled { get; init; }
    public required long TimedOut { get; init; }
    public required long ServerErrors { get; init; }
    public required long ClientErrors { get; init; }
    public required long NetworkErrors { get; init; }
    public long? Entities { get; init; }
    /// <summary>Blob: bytes of the blobs committed in the measured window — what throughput (goodput) is computed from.</summary>
    public long? Bytes { get; init; }
    /// <summary>The work the run set out to do: entities or blobs (the spec's count, or for a fixed duration what was attempted).</summary>
    public long Planned { get; init; }
    /// <summary>Of it, what the service stored (entities, warm-up included; blobs committed).</summary>
    public long Stored { get; init; }
    /// <summary>1 − stored / planned. Above the spec's maxUnstoredShare the run is Failed.</summary>
    public double UnstoredShare { get; init; }
    public long? BlobsPlanned { get; init; }
    public long? BlobsCommitted { get; init; }
    /// <summary>Blobs planned but not committed: a block or the commit still failed after its retries, a slice failed, or the run stopped mid-blob.</summary>
    public long? BlobsFailed { get; init; }
    /// <summary>Blob: bytes staged by successful Put Blocks (measured window), committed or not.</summary>
    public long? BytesSent { get; init; }
    /// <summary>Blob: of those, the bytes of blobs that were never committed (work the service accepted and the run then lost).</summary>
    public long? BytesSentForFailedBlobs { get; init; }
    /// <summary>Blob: bytes staged per second (every successful Put Block), next to throughput's committed bytes per second.</summary>
    public Throughput? BlockThroughput { get; init; }
    /// <summary>
    /// Priming before the start instant, apart from the measured window: requests sent, and of them throttled
    /// and failed (throttled included). None of these is in the measured counts above.
    /// </summary>
    public PrimingOutcomes? Priming { get; init; }
    /// <summary>Requests left out of every statistic as warm-up (they still count for ground truth).</summary>
    public long WarmupOperations { get; init; }
    /// <summary>First slice start to last slice end.</summary>
    public required double DurationSeconds { get; init; }
    /// <summary>Succeeded operations and stored units over the duration: entities/s, or for blobs goodput (committed blobs' bytes per second).</summary>
    public required Throughput Throughput { get; init; }
    /// <summary>
    /// Over the whole seconds in which every slice was running; null when that window is under one second.
    /// Like the timeline and the peak, for blobs it counts bytes staged by successful Put Blocks (a commit is one instant).
    /// </summary>
    public Throughput? AllSlicesActiveThroughput { get; init; }
    public double AllSlicesActiveSeconds { get; init; }
    /// <summary>
    /// The spread of the per-second rates in the all-slices-active window (entities/s, or MB/s staged):
    /// the run's own noise, which <c>storagebench compare</c> weighs changes against. Null when that
    /// window has fewer than two buckets, and in summaries written before it was recorded.
    /// </summary>
    public RateSpread? PerSecondSpread { get; init; }
    /// <summary>
    /// Best UTC-aligned window of <see cref="PeakWindowSeconds"/> wholly inside the measured window,
    /// summed across slices, per second: entities/s (table) or MB/s (blob). Null when the run covers
    /// no whole window.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.Never)]
    public double? PeakPerSecond { get; init; }
    public required string PeakUnit { get; init; }
    /// <summary>1 (a single second) unless a slice ran longer than its timeline's per-second budget (<see cref="SliceResult.MaxTimelineBuckets"/> s).</summary>
    public int PeakWindowSeconds { get; init; } = 1;
    /// <summary>From each request's slot in an open loop's schedule (or its send, when earlier), from its send in a closed loop.</summary>
    public required LatencySummary LatencyMs { get; init; }
    /// <summary>Send to answer of the same requests: what the service took. Equal to latency in a closed loop.</summary>
    public LatencySummary? ServiceTimeMs { get; init; }
    /// <summary>Open loop: how far the requests went out behind their slots, and the slots never sent; null in a closed loop.</summary>
    public ScheduleLag? ScheduleLag { get; init; }
    public required VerificationResult Verified { get; init; }
    /// <summary>Driver process CPU while the slices ran (summed over processes), and per entity or per MB written.</summary>
    public double ClientCpuSeconds { get; init; }
    public double? ClientCpuMicrosecondsPerEntity { get; init; }
    public double? ClientCpuMicrosecondsPerMegabyte { get; init; }
    /// <summary>Successful operations and units per bucket of UTC seconds, all slices summed; at most <see cref="SummaryCalculator.MaxTimelineBuckets"/> buckets.</summary>
    public Timeline Timeline { get; init; } = Timeline.Empty;
    /// <summary>Latency histogram for plotting: equal-width bins from min to p99.9, then one bin to max.</summary>
    public IReadOnlyList<LatencyBin> LatencyDistribution { get; init; } = [];
    /// <summary>Merged HdrHistogram (µs), compressed base64, so percentiles can be recomputed later.</summary>
    public required string LatencyHistogram { get; init; }
    /// <summary>The same for service time; in a closed loop the latency histogram itself.</summary>
    public string? ServiceTimeHistogram { get; init; }
    /// <summary>The spread of the slices' own rates and the latest synchronized start, to spot a slow instance or partition.</summary>
    public SliceSpread? SliceSpread { get; init; }
    /// <summary>The attempt id of each slice's accepted execution, by slice index (what ground truth counted).</summary>
    public IReadOnlyList<string> SliceAttempts { get; init; } = [];
    /// <summary>
    /// Each slice's own figures. Read from the results table's slice rows when the summary is put
    /// together (they are too many to travel through the orchestration); empty when it was unreachable.
    /// </summary>
    public IReadOnlyList<SliceSummary> PerSlice { get; init; } = [];

    /// <summary>Per worker process: its slices, rate and CPU per unit (WorkerFigures); reports show them when more than one worker ran slices.</summary>
    public IReadOnlyList<WorkerFigures> PerWorker { get; init; } = [];
    /// <summary>Every request the workload's step sent for it, by kind, as counted (the cost estimate prices these).</summary>
    public IReadOnlyList<TransactionLine> Transactions { get; init; } = [];
    /// <summary>Bytes the service held: entities stored × entity size (payload only), or committed blobs × blob size; warm-up included.</summary>
    public long StoredBytes { get; init; }
    /// <summary>Reads: entities per successful query page (measured window); null for point reads and other workloads.</summary>
    public double? EntitiesPerQueryPage { get; init; }
    /// <summary>Reads: entities returned that were not what was seeded, or missing from an answer; any fails verification. Null for other workloads.</summary>
    public long? Mismatches { get; init; }
    /// <summary>Blob download: time to first byte of the successful measured Get Blobs (send to the answer's headers), beside their latency (to the last byte).</summary>
    public LatencySummary? TimeToFirstByteMs { get; init; }
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
