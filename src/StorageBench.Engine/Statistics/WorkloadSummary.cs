using System.Text.Json.Serialization;

namespace StorageBench.Engine.Statistics;

/// <summary>One workload's figures in a summary (summary.json's workloads[]): the counts, rates and latencies every workload has, and the fields a room adds.</summary>
public sealed record WorkloadSummary
{
    /// <summary>The encoded histograms a workload's figures carry: latency and service time.</summary>
    public const int HistogramCount = 2;

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
    /// <summary>A run of at least ten segments: its first and last tenth compared (stable, slower, faster); null otherwise.</summary>
    public DriftFigure? Drift { get; init; }
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
    /// <summary>The same for service time (open loop); null in a closed loop, where the latency histogram is the service time's.</summary>
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
