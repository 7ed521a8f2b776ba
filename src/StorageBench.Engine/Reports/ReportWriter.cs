using System.Globalization;
using System.Text;
using System.Text.Json;

namespace StorageBench.Engine.Reports;

/// <summary>Writes summary.json, summary.md and summary.html beside each other; the Markdown is also what the CLI prints.</summary>
public static class ReportWriter
{
    public static async Task<IReadOnlyList<string>> WriteAsync(RunSummary summary, string directory, CancellationToken ct)
    {
        Directory.CreateDirectory(directory);
        string json = Path.Combine(directory, "summary.json");
        string md = Path.Combine(directory, "summary.md");
        string html = Path.Combine(directory, "summary.html");
        await File.WriteAllTextAsync(json, JsonSerializer.Serialize(summary, JsonDefaults.Options), ct).ConfigureAwait(false);
        await File.WriteAllTextAsync(md, Markdown(summary), ct).ConfigureAwait(false);
        await File.WriteAllTextAsync(html, HtmlReportWriter.Render(summary), ct).ConfigureAwait(false);
        return [json, md, html];
    }

    /// <param name="withCost">False leaves the cost section out (the HTML report places it after the charts).</param>
    public static string Markdown(RunSummary s, bool withCost = true)
    {
        var b = new StringBuilder();
        AppendHeader(b, s);
        if (s.Workloads.Count == 0)
        {
            return b.ToString();
        }
        b.AppendLine();
        // Each kind's own word for what its planned work came to: a download's is not stored.
        string stored = string.Join(" or ", s.Workloads.Select(w => WorkloadKind.Find(w.Workload)?.StoredWord ?? "stored").Distinct());
        b.AppendLine(CultureInfo.InvariantCulture,
            $"| workload | slices | ops | ok | failed | throttled | timed out | {stored} / planned (warm-up included) | entities / MB measured (warm-up excluded) | seconds | throughput | all-slices window | peak/s | verified |");
        b.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        foreach (var w in s.Workloads)
        {
            string amount = w.Entities is { } e ? F(e) : F((w.Bytes ?? 0) / 1e6, "0.0") + " MB";
            // Of nothing planned no share was stored: a run stopped before it sent anything says so.
            string share = w.Planned == 0 ? "none sent" : $"{(1 - w.UnstoredShare) * 100:0.0}%";
            string done = $"{F(w.Stored)}/{F(w.Planned)}{(w.BlobsPlanned is null ? "" : " blobs")} ({share})";
            b.AppendLine(CultureInfo.InvariantCulture,
                $"| {Label(w)} | {w.Slices} | {F(w.Operations)} | {F(w.Succeeded)} | {F(w.Failed)} | {F(w.Throttled)} | {F(w.TimedOut)} | {done} | {amount} | {F(w.DurationSeconds, "0.00")} | {Rate(w.Throughput)} | {(w.AllSlicesActiveThroughput is { } a ? Rate(a) : "n/a")} | {(w.PeakPerSecond is { } peak ? $"{F(peak, "0.#")} {w.PeakUnit}" : "n/a")} | {Verified(w.Verified)} |");
        }
        b.AppendLine();
        // The † rule goes in the table's caption, not under it: the console summary stays within its line budget.
        bool marked = s.Workloads.Any(w => w.LatencyMs.Samples > 0 && !PercentileSupport.Supports(w.LatencyMs.Samples, 0.999));
        b.AppendLine("Latency of successful requests (ms), from the merged histogram of all slices" + (marked
            ? $" ({TooFewMark} too few samples to support this percentile: a percentile q needs at least {PercentileSupport.SamplesAbove} / (1 − q) samples, {PercentileSupport.SamplesAbove} above it " +
              $"(p50 {F(PercentileSupport.MinSamples(0.5))}, p90 {F(PercentileSupport.MinSamples(0.9))}, p99 {F(PercentileSupport.MinSamples(0.99))}, p99.9 {F(PercentileSupport.MinSamples(0.999))}); " +
              "with fewer it is one of the few slowest requests, which one stall moves, and storagebench compare does not judge it either):"
            : ":"));
        b.AppendLine();
        b.AppendLine("| workload | samples | min | p50 | mean | p70 | p80 | p90 | p95 | p99 | p99.9 | max |");
        b.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var w in s.Workloads)
        {
            LatencyRow(b, Label(w), w.LatencyMs);
            if (w.ScheduleLag is not null && w.ServiceTimeMs is { } serviceTime)
            {
                LatencyRow(b, $"{Label(w)} service time", serviceTime);
            }
            if (w.TimeToFirstByteMs is { } firstByte)
            {
                LatencyRow(b, $"{Label(w)} time to first byte", firstByte);
            }
        }
        if (s.Workloads.Any(w => w.ScheduleLag is not null))
        {
            b.AppendLine();
            b.AppendLine(OpenLoopLatency);
        }
        b.AppendLine();
        AppendWorkloadNotes(b, s);
        WorkerTable.AppendMarkdown(b, s);
        if (withCost)
        {
            CostReport.AppendMarkdown(b, s);
        }
        return b.ToString();
    }

    /// <summary>The title, the scenario and its environment, the machine's load, the errors and notes, and the saturation search's outcome.</summary>
    private static void AppendHeader(StringBuilder b, RunSummary s)
    {
        b.AppendLine(CultureInfo.InvariantCulture, $"# StorageBench run {s.RunId} — {s.Status}");
        b.AppendLine();
        b.AppendLine(CultureInfo.InvariantCulture, $"Scenario `{s.Spec?.Scenario}` · target {s.Environment.TargetKind} · host {s.Environment.Host} on {s.Environment.Machine} ({s.Environment.ProcessorCount} cores, {s.Environment.Runtime}) · {s.Environment.Instances} instance(s), {s.Environment.Workers} worker(s)");
        b.AppendLine(CultureInfo.InvariantCulture, $"Started {s.StartedUtc:u}, ended {s.EndedUtc:u}");
        var env = s.Environment;
        // How busy the machine was and which build ran: what explains two runs that differ.
        b.AppendLine(CultureInfo.InvariantCulture,
            $"Machine: load average {(env.LoadAverageStart is { } l0 ? F(l0, "0.0") : "n/a")} at start, {(env.LoadAverageEnd is { } l1 ? F(l1, "0.0") : "n/a")} at end; " +
            $"other processes used {(env.OtherProcessesCpuShare is { } o ? F(o * 100, "0") + "%" : "n/a")} of its CPU during the run · " +
            $"tool {env.ToolVersion ?? "n/a"} (commit {env.ToolCommit ?? "n/a"}){(env.EmulatorVersion is { } emu ? $" · emulator {emu}" : "")}");
        foreach (string line in ErrorsAndNotes(s))
        {
            b.AppendLine(line);
        }
        if (s.Saturation is { } sat)
        {
            b.AppendLine(CultureInfo.InvariantCulture,
                $"Saturation search on `{sat.Parameter}`: highest useful value {(sat.HighestSustainableValue is { } h ? F(h, "0.##") : "none")} ({(sat.ThroughputAtHighest is { } t ? F(t, "0.#") + " " + sat.ThroughputUnit : "n/a")}); " +
                $"knee {(sat.KneeValue is { } k ? F(k, "0.##") + (sat.ThroughputAtKnee is { } kt ? $" ({F(kt, "0.#")} {sat.ThroughputUnit})" : "") : "not reached")}; " +
                $"stopped by {sat.StoppedBy switch { "throughput-growth" => "the throughput-growth rule", "failed-share" => "the failed-share bound", "p99" => "the p99 bound", "no-success" => "no successful request", "step-failed" => "a failed step", "max-reached" => "no rule (saturation.max reached)", _ => "a rule not recorded" }}: {sat.Reason}.");
        }
    }

    /// <summary>Per workload: what it measures, its blobs, warm-up, late start, schedule, priming, driver CPU and verification.</summary>
    private static void AppendWorkloadNotes(StringBuilder b, RunSummary s)
    {
        foreach (var w in s.Workloads)
        {
            string cpu = w.ClientCpuMicrosecondsPerEntity is { } perEntity ? $"{F(perEntity, "0.#")} µs per entity"
                : w.ClientCpuMicrosecondsPerMegabyte is { } perMb ? $"{F(perMb, "0")} µs per MB" : "n/a";
            string warmup = w.WarmupOperations > 0 ? $" {F(w.WarmupOperations)} warm-up requests excluded." : "";
            string blobs = w.BlobsPlanned is { } planned
                ? $" Blobs: {F(w.BlobsCommitted ?? 0)} of {F(planned)} committed, {F(w.BlobsFailed ?? 0)} failed; {F((w.BytesSent ?? 0) / 1e6, "0.0")} MB staged, " +
                  $"{F((w.BytesSentForFailedBlobs ?? 0) / 1e6, "0.0")} MB of it for blobs never committed; block throughput {(w.BlockThroughput is { } bt ? Rate(bt) : "n/a")}."
                : "";
            string priming = w.Priming is { } p ? $" Priming (before the start, not in the figures above): {F(p.Requests)} requests, {F(p.Throttled)} throttled, {F(p.Failed)} failed." : "";
            string schedule = w.ScheduleLag is { } lagged ? " " + Schedule(lagged) : "";
            b.AppendLine(CultureInfo.InvariantCulture, $"- {Label(w)}: {w.Measures}.{blobs}{warmup}{LateStart(w)}{schedule}{priming}{Drift(w)} Driver CPU {F(w.ClientCpuSeconds, "0.00")} s ({cpu}). Verified: {w.Verified.Detail}.");
        }
    }

    /// <summary>" Drift: stable (…)." for a run of ten segments or more: its first tenth against its last, by compare's noise rule.</summary>
    public static string Drift(WorkloadSummary w)
    {
        if (w.Drift is not { } d)
        {
            return "";
        }
        string unit = w.Throughput.EntitiesPerSecond is null ? "MB/s" : "entities/s";
        string p99 = d.FirstTenthP99Ms is { } first && d.LastTenthP99Ms is { } last ? $", p99 {F(first, "0.0")} → {F(last, "0.0")} ms (noise ±{F(d.P99Band * 100, "0")} %)" : "";
        return $" Drift, first tenth of the run → last: {d.Verdict}: {F(d.FirstTenthPerSecond, "#,0.0")} → {F(d.LastTenthPerSecond, "#,0.0")} {unit} (noise ±{F(d.ThroughputBand * 100, "0")} %){p99}.";
    }

    /// <summary>
    /// The lines under a summary's title: its errors, each workload of the spec that has no figures and why, then its notes
    /// (what went differently without costing a figure: not errors).
    /// </summary>
    public static IEnumerable<string> ErrorsAndNotes(RunSummary s) =>
        s.Errors.Select(e => $"- error: {e}")
            .Concat(s.Unmeasured.Select(u => $"- {Label(u.Workload, u.StepParameter, u.StepValue)}: no figures: {u.Reason}"))
            .Concat(s.Notes.Select(n => $"- note: {n}"));

    /// <summary>A slice this late past the synchronized start did not run with the others from its first request.</summary>
    public const double LateStartSeconds = 0.05;

    /// <summary>
    /// " WARNING: …" when slices passed the synchronized start late, with its cause: slices that ran once came late because
    /// startDelaySeconds was too short for the setup; a re-run slice (an earlier execution lost: a worker stopped, or the run was
    /// resumed) starts whenever it runs again, which no start delay changes. "" when every slice was on time.
    /// </summary>
    public static string LateStart(WorkloadSummary w)
    {
        if (w.SliceSpread is not { } spread)
        {
            return "";
        }
        double firstRuns = spread.RerunSlices + spread.WaitedSlices > 0 ? spread.FirstRunsMaxStartLagSeconds : spread.MaxStartLagSeconds;
        string late = firstRuns > LateStartSeconds ? $" WARNING: slices passed the synchronized start up to {F(firstRuns * 1000, "0")} ms late; raise startDelaySeconds." : "";
        if (spread.WaitedSlices > 0)
        {
            late += $" WARNING: {spread.WaitedSlices} slice(s) waited for a worker: their workers were running other slices of the step up to their activity limit, " +
                "so they started when those ended (see the notes); startDelaySeconds cannot change that.";
        }
        if (spread.RerunSlices > 0 && spread.MaxStartLagSeconds > Math.Max(firstRuns, LateStartSeconds))
        {
            late += $" WARNING: {spread.RerunSlices} slice(s) ran again after an earlier execution was lost (a worker stopped, or the run was resumed) and passed " +
                $"the synchronized start up to {F(spread.MaxStartLagSeconds * 1000, "#,0")} ms late: their figures are not from the same seconds as the others'; startDelaySeconds cannot change that.";
        }
        return late;
    }

    /// <summary>What an open loop's latency and service time are: said under the latency table and by the live progress.</summary>
    public const string OpenLoopLatency = "Open loop: latency runs from each request's slot in the schedule (from its send if that was earlier), so the time " +
        "it waited behind a busy loop counts, as its caller would have waited; service time runs from the send.";

    private static void LatencyRow(StringBuilder b, string label, LatencySummary l)
    {
        string P(double? value, double q) => Ms(value) + (PercentileSupport.Supports(l.Samples, q) || l.Samples == 0 ? "" : TooFewMark);
        b.AppendLine(CultureInfo.InvariantCulture,
            $"| {label} | {F(l.Samples)} | {Ms(l.Min)} | {P(l.P50, 0.50)} | {Ms(l.Mean)} | {P(l.P70, 0.70)} | {P(l.P80, 0.80)} | {P(l.P90, 0.90)} | {P(l.P95, 0.95)} | {P(l.P99, 0.99)} | {P(l.P999, 0.999)} | {Ms(l.Max)} |");
    }

    /// <summary>
    /// How far an open loop fell behind its schedule, and when it did, a warning that names the cure: "Schedule: p99 lag 0 ms,
    /// max 0.4 ms; 0 of 400 requests went out more than 1 ms late."
    /// </summary>
    public static string Schedule(ScheduleLag lag)
    {
        string dropped = lag.DroppedOperations > 0 ? $"; {F(lag.DroppedOperations)} slots not sent by the end of the duration (dropped)" : "";
        string text = $"Schedule: p99 lag {Ms(lag.P99Ms)} ms, max {Ms(lag.MaxMs)} ms; {F(lag.LateRequests)} of {F(lag.Requests)} requests went out more than " +
            $"{F(ScheduleLag.LateMs)} ms late{dropped}.";
        return lag.FellBehind
            ? text + " WARNING: the open loop could not keep its rate; raise concurrency or slices, or lower targetOperationsPerSecond."
            : text;
    }

    /// <summary>Marks a latency percentile that too few samples support (PercentileSupport).</summary>
    public const string TooFewMark = "†";

    /// <summary>
    /// "yes (40,000/40,000 entities)", "NO (39,900/40,000 entities)", "nothing to verify (0 entities)" when nothing was sent, or — when storage could not be checked at all —
    /// "not verified: why", never a bare NO (0/0).
    /// </summary>
    public static string Verified(VerificationResult v) =>
        v.Matched && v.Expected == 0 && v.Actual == 0 ? $"nothing to verify (0 {v.Unit})"
        : v.Matched ? $"yes ({F(v.Actual)}/{F(v.Expected)} {v.Unit})"
        : v.NotVerifiedReason is not null ? v.Detail
        : $"NO ({F(v.Actual)}/{F(v.Expected)} {v.Unit})";

    public static string Label(WorkloadSummary w) => Label(w.Workload, w.StepParameter, w.StepValue);

    /// <summary>"tableInsert", or for a sweep or search step "tableInsert batchSize=10".</summary>
    public static string Label(string workload, string? stepParameter, double? stepValue) =>
        stepParameter is null ? workload : $"{workload} {stepParameter.Split('.')[^1]}={F(stepValue ?? 0, "0.##")}";

    private static string Rate(Throughput t) => t.EntitiesPerSecond is { } e
        ? $"{F(e, "0.0")} entities/s ({F(t.KilobytesPerSecond ?? 0, "0.0")} KB/s)"
        : $"{BytesPerSecond(t.MegabytesPerSecond ?? 0)} ({F(t.MegabitsPerSecond ?? 0, "0.0##")} Mbps)";

    /// <summary>"12,345.6 entities/s" or "66.65 MB/s" (<see cref="BytesPerSecond"/>): a throughput in the unit of its workload.</summary>
    public static string RateText(Throughput t) => t.EntitiesPerSecond is { } e ? $"{F(e, "#,0.0")} entities/s" : BytesPerSecond(t.MegabytesPerSecond ?? 0);

    /// <summary>"66.65 MB/s", or below 1 MB/s "412.50 KB/s": a tiny blob run never reads 0.00 MB/s.</summary>
    public static string BytesPerSecond(double megabytesPerSecond) => megabytesPerSecond is >= 1 or 0
        ? $"{F(megabytesPerSecond, "#,0.00")} MB/s"
        : $"{F(megabytesPerSecond * 1000, "#,0.00")} KB/s";

    /// <summary><see cref="TooFewMark"/> after a percentile q of <paramref name="samples"/> that too few of them support; "" otherwise.</summary>
    public static string TooFew(long samples, double q) => samples > 0 && !PercentileSupport.Supports(samples, q) ? TooFewMark : "";

    /// <summary>The note under a table whose p99 column may carry <see cref="TooFewMark"/>.</summary>
    public static string TooFewP99Note => $"{TooFewMark} too few samples support it (p99 needs {F(PercentileSupport.MinSamples(0.99))})";

    /// <summary>A figure in ms; "n/a" for one of no samples.</summary>
    private static string Ms(double? v) => v is { } ms ? F(ms, "0.###") : "n/a";

    private static string F(double v, string format = "#,0") => v.ToString(format, CultureInfo.InvariantCulture);
}
