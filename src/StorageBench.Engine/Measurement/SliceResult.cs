using System.Diagnostics;

namespace StorageBench.Engine.Measurement;

/// <summary>
/// What one slice measured, in a serializable form that crosses the orchestration boundary (its size
/// is bounded: a compressed histogram and a timeline of at most <see cref="MaxTimelineBuckets"/> buckets).
/// Units are entities (table) or bytes staged (blob); Objects are committed blobs.
/// Started/Ended bound the measured requests (warm-up excluded).
/// </summary>
public sealed record SliceResult
{
    /// <summary>Per-second detail for slices up to this many seconds long; longer ones widen their buckets.</summary>
    public const int MaxTimelineBuckets = 1024;

    /// <summary>The encoded histograms a result can carry: latency, service time, lag, first byte and the drift's two tenths.</summary>
    public const int HistogramCount = 6;

    /// <summary>The sweep step (or the run's only step) whose table/container this slice wrote to.</summary>
    public required string StepId { get; init; }
    /// <summary>
    /// This execution of the slice: every entity or blob it wrote carries it. Activities run at least
    /// once, so a slice may run twice; only the attempt whose result the orchestrator received counts.
    /// </summary>
    public string AttemptId { get; init; } = "";
    public required string Workload { get; init; }
    public required int SliceIndex { get; init; }
    /// <summary>Which configured target account the slice wrote to.</summary>
    public int TargetIndex { get; init; }
    public required string Host { get; init; }
    public required DateTime StartedUtc { get; init; }
    public required DateTime EndedUtc { get; init; }
    /// <summary>How late the slice passed the synchronized start (0 when on time): preflight or scheduling too slow for startDelaySeconds, or a re-run.</summary>
    public double StartLagSeconds { get; init; }
    /// <summary>True when an earlier execution of this slice was lost (its worker stopped, or the run was resumed): this one started whenever it could.</summary>
    public bool Rerun { get; init; }
    public required OutcomeCounts Counts { get; init; }
    public required long Units { get; init; }
    public long WarmupOperations { get; init; }
    public long WarmupUnits { get; init; }
    /// <summary>Blob only: blobs committed.</summary>
    public long Objects { get; init; }
    /// <summary>Blob only: bytes of the blobs committed in the measured window (warm-up excluded): goodput's numerator.</summary>
    public long CommittedUnits { get; init; }
    /// <summary>
    /// The work this slice set out to do, in entities (table) or blobs (blob): its share of the count, or
    /// for a fixed duration what it attempted. Compared with what was stored to judge a run's completeness.
    /// </summary>
    public long Planned { get; init; }
    /// <summary>Units in every request sent, warm-up included (entities or bytes).</summary>
    public long UnitsAttempted { get; init; }
    /// <summary>Blob only: blobs started that were not committed (a block or the commit failed after its retries, or the run stopped mid-blob).</summary>
    public long ObjectsFailed { get; init; }
    /// <summary>Blob only: bytes staged by successful Put Blocks of blobs that were never committed.</summary>
    public long FailedObjectUnits { get; init; }
    /// <summary>
    /// HdrHistogram of successful-request latency in microseconds, compressed and base64-encoded: from each request's slot in
    /// an open loop (or its send, when earlier), from its send in a closed loop.
    /// </summary>
    public required string LatencyHistogram { get; init; }
    /// <summary>Open loop: the same for service time (send to answer); null in a closed loop, where latency is the service time.</summary>
    public string? ServiceTimeHistogram { get; init; }
    /// <summary>Open loop: how late each measured request went out after its slot (µs); null in a closed loop.</summary>
    public string? LagHistogram { get; init; }
    /// <summary>Open loop with a duration: slots due before the slice stopped that were never sent (every loop was busy).</summary>
    public long DroppedOperations { get; init; }
    public required Timeline Timeline { get; init; }
    /// <summary>True when the run was canceled while this slice ran: it stopped early, and its figures cover what it did.</summary>
    public bool Canceled { get; init; }
    /// <summary>Why the slice stopped before its work was done (e.g. storage unreachable); null when it was not cut short.</summary>
    public string? StopReason { get; init; }
    /// <summary>
    /// Bookkeeping around the slice that did not work — progress updates skipped, cancel polls unanswered, its row
    /// not stored — one line per kind: reported, never swallowed; the figures themselves are whole.
    /// </summary>
    public IReadOnlyList<string> Notes { get; init; } = [];
    /// <summary>The driver process and its total CPU time at slice start and end, to derive CPU per operation.</summary>
    public int ProcessId { get; init; }

    /// <summary>The worker that ran this execution: machine and process, as a Function App instance or a `storagebench worker` is one.</summary>
    public string Worker { get => _worker ?? $"{Host}/{ProcessId}"; init => _worker = value; }

    private readonly string? _worker;

    /// <summary>It started late because its worker was running other slices of the step up to its activity limit (not because of startDelaySeconds).</summary>
    public bool WaitedForWorker { get; init; }
    public double ProcessCpuSecondsAtStart { get; init; }
    public double ProcessCpuSecondsAtEnd { get; init; }
    /// <summary>Blob only: MD5 (base64) of the content every blob of this slice was given.</summary>
    public string? ContentMd5 { get; init; }
    /// <summary>Priming, Put Block Lists and the requests on the wire: what the cost estimate counts beyond <see cref="Counts"/>.</summary>
    public SliceRequests Requests { get; init; } = new();

    /// <summary>Reads only: entities a successful read returned that were not what was seeded, or that it should have returned and did not.</summary>
    public long Mismatches { get; init; }

    /// <summary>Reads only: reads (a point read, or every page of a query) that returned exactly what was seeded, warm-up included.</summary>
    public long MatchedReads { get; init; }

    /// <summary>Blob download: HdrHistogram (µs, compressed base64) of successful measured requests' time to first byte (send to the answer's headers); null elsewhere.</summary>
    public string? FirstByteHistogram { get; init; }

    /// <summary>Blob download: whole-blob downloads that came back with another length (or MD5) than was seeded.</summary>
    public long WrongDownloads { get; init; }

    /// <summary>A segment of a longer slice: where the next segment goes on. Null when the slice ran whole.</summary>
    public Workloads.SegmentContinuation? Continuation { get; init; }

    /// <summary>A slice run as segments: seconds between its segments it did not run (a lost segment's re-run came later), left out of its duration.</summary>
    public double PausedSeconds { get; init; }

    /// <summary>A slice run as segments: each segment's accepted execution (attempt id), in order; null when it ran whole.</summary>
    /// <remarks>Two plain lists, not a list of pairs: a 24-h slice's 288 segments stay well within the payload budget.</remarks>
    public IReadOnlyList<string>? SegmentAttempts { get; init; }

    /// <summary>Blob content checked: each segment's content MD5, beside <see cref="SegmentAttempts"/>; null otherwise.</summary>
    public IReadOnlyList<string>? SegmentContentMd5 { get; init; }

    /// <summary>A slice of at least ten segments: latency in its first and last tenth, for the drift figure (null otherwise).</summary>
    public SegmentDrift? Drift { get; init; }

    /// <summary>Every accepted execution whose writes are this slice's, with the content it gave its blobs: one, or one per segment.</summary>
    public IEnumerable<SegmentAttempt> Executions() => SegmentAttempts is { } attempts
        ? attempts.Select((a, k) => new SegmentAttempt(a, SegmentContentMd5?[k]))
        : [new SegmentAttempt(AttemptId, ContentMd5)];

    /// <summary>
    /// Merges worker recorders into one slice result. <paramref name="commits"/> (blob) records Put Block
    /// Lists: counted as requests and in the measured window, its units (committed blob bytes) kept apart
    /// from the staged bytes, and neither timed nor in the timeline. <paramref name="requests"/> (priming, wire)
    /// gets the commits' request counts added.
    /// </summary>
    public static SliceResult FromWorkers(string stepId, string attemptId, string workload, int sliceIndex, int targetIndex, double cpuSecondsAtStart,
        IReadOnlyCollection<WorkerRecorder> workers, WorkerRecorder? commits = null, long objects = 0, string? contentMd5 = null, SliceRequests? requests = null)
    {
        var histogram = LatencyHistograms.Pool.Get();
        bool openLoop = workers.Any(w => w.Lag is not null);
        var serviceTime = openLoop ? LatencyHistograms.Pool.Get() : null;
        var lag = openLoop ? LatencyHistograms.Pool.Get() : null;
        var counts = new long[Enum.GetValues<Outcome>().Length];
        var all = commits is null ? workers : [.. workers, commits];
        foreach (var w in all)
        {
            histogram.Add(w.Latency);
            serviceTime?.Add(w.ServiceTime);
            if (w.Lag is { } l)
            {
                lag!.Add(l);
            }
            for (int i = 0; i < counts.Length; i++)
            {
                counts[i] += w.CountsByOutcome[i];
            }
        }
        var measured = all.Where(w => w.FirstMeasuredStart != 0).ToList();
        var any = workers.First();
        long first = measured.Count > 0 ? measured.Min(w => w.FirstMeasuredStart) : Stopwatch.GetTimestamp();
        long last = measured.Count > 0 ? measured.Max(w => w.LastMeasuredEnd) : first;
        using var process = Process.GetCurrentProcess();
        return new SliceResult
        {
            StepId = stepId,
            AttemptId = attemptId,
            Workload = workload,
            SliceIndex = sliceIndex,
            TargetIndex = targetIndex,
            Host = Environment.MachineName,
            StartedUtc = new DateTime(DateTime.UnixEpoch.Ticks + any.ToUnixTicks(first), DateTimeKind.Utc),
            EndedUtc = new DateTime(DateTime.UnixEpoch.Ticks + any.ToUnixTicks(last), DateTimeKind.Utc),
            Counts = OutcomeCounts.FromArray(counts),
            Units = workers.Sum(w => w.Units),
            UnitsAttempted = workers.Sum(w => w.UnitsAttempted),
            CommittedUnits = commits?.Units ?? 0,
            WarmupOperations = all.Sum(w => w.WarmupOperations),
            WarmupUnits = workers.Sum(w => w.WarmupUnits),
            Objects = objects,
            LatencyHistogram = LatencyHistograms.EncodeAndReturnToPool(histogram, LatencyHistograms.Compact),
            ServiceTimeHistogram = serviceTime is null ? null : LatencyHistograms.EncodeAndReturnToPool(serviceTime, LatencyHistograms.Compact),
            LagHistogram = lag is null ? null : LatencyHistograms.EncodeAndReturnToPool(lag, LatencyHistograms.Compact),
            Timeline = Timeline.Merge(workers.Select(w => w.Timeline)).Fit(MaxTimelineBuckets),
            ProcessId = Environment.ProcessId,
            ProcessCpuSecondsAtStart = cpuSecondsAtStart,
            ProcessCpuSecondsAtEnd = process.TotalProcessorTime.TotalSeconds,
            ContentMd5 = contentMd5,
            Requests = (requests ?? new()) with
            {
                BlockLists = commits is null ? 0 : commits.CountsByOutcome.Sum() + commits.WarmupOperations,
                BlockListsFailed = commits is null ? 0 : commits.CountsByOutcome.Sum() - commits.CountsByOutcome[(int)Outcome.Succeeded],
            },
        };
    }

    /// <summary>A new attempt id: 8 hex digits, unique enough among the few executions of one slice.</summary>
    public static string NewAttemptId() => Guid.NewGuid().ToString("N")[..8];

    public static double ProcessCpuSeconds()
    {
        using var process = Process.GetCurrentProcess();
        return process.TotalProcessorTime.TotalSeconds;
    }
}

/// <summary>One segment's accepted execution: its attempt id (every write of it carries it) and its blobs' content MD5.</summary>
public sealed record SegmentAttempt(string AttemptId, string? ContentMd5);

/// <summary>
/// Latency histograms (µs, compressed base64) of a slice's first and last tenth of segments, added across slices exactly, and
/// when each tenth ran (its rate comes from the step's timeline over the seconds every slice ran it).
/// </summary>
public sealed record SegmentDrift(string FirstTenth, string LastTenth, DateTime FirstFromUtc, DateTime FirstToUtc, DateTime LastFromUtc, DateTime LastToUtc);

/// <summary>The one rule for which writes are a step's: every accepted execution of its slices, in slice order.</summary>
public static class SliceExecutions
{
    public static string[] Attempts(IEnumerable<SliceResult> slices) => [.. slices.OrderBy(s => s.SliceIndex).SelectMany(s => s.Executions()).Select(e => e.AttemptId)];
}
