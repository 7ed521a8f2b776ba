using System.Globalization;
using System.Text;
using StorageBench.Engine.Reports;

namespace StorageBench.Cli;

/// <summary>
/// What a run prints on the console. By default a compact summary that fits a 120-column terminal: the run line, one
/// short table of the headline figures (workload, ops, ok, failed, throttled, timed out, throughput, p50, p99, verified),
/// what each workload measured and how it was verified, and the cost in one line. The wide tables (stored / planned, the
/// all-slices window, peak/s, every latency percentile), the driver's CPU, priming and the cost table stay in
/// summary.md/html and print with --verbose.
/// </summary>
public static class ConsoleReport
{
    /// <summary>The widest line the default summary prints (but a path or a word longer than that).</summary>
    public const int Columns = 120;

    public static string Default(RunSummary s)
    {
        var b = new StringBuilder();
        var env = s.Environment;
        b.AppendLine(CultureInfo.InvariantCulture, $"# StorageBench run {s.RunId} — {s.Status}");
        b.AppendLine();
        Line(b, $"Scenario {s.Spec?.Scenario} · target {env.TargetKind} · {env.Instances} instance(s) · {s.StartedUtc:u} to {s.EndedUtc:HH:mm:ss}Z");
        string load = env.LoadAverageStart is { } l0 ? $"load {F(l0, "0.0")} to {(env.LoadAverageEnd is { } l1 ? F(l1, "0.0") : "n/a")}" : "load n/a";
        string others = env.OtherProcessesCpuShare is { } o ? $"other processes {F(o * 100, "0")}% of its CPU" : "other processes n/a";
        Line(b, $"Machine {env.Machine} ({env.ProcessorCount} cores): {load}, {others} · tool {env.ToolVersion ?? "n/a"}" +
            (env.ToolCommit is { Length: > 0 } commit ? $" ({commit[..Math.Min(12, commit.Length)]})" : ""));
        foreach (string line in ReportWriter.ErrorsAndNotes(s))
        {
            Line(b, line);
        }
        if (s.Saturation is { } sat)
        {
            Line(b, $"Saturation search on {sat.Parameter}: highest useful value {(sat.HighestSustainableValue is { } h ? F(h, "0.##") : "none")}, " +
                $"knee {(sat.KneeValue is { } k ? F(k, "0.##") : "not reached")} (stopped by {sat.StoppedBy ?? "a rule not recorded"}; summary.md says why).");
        }
        if (s.Workloads.Count == 0)
        {
            return b.ToString();
        }
        b.AppendLine();
        b.AppendLine("| workload | ops | ok | failed | throttled | timed out | throughput | p50 ms | p99 ms | verified |");
        b.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        foreach (var w in s.Workloads)
        {
            var l = w.LatencyMs;
            string P(double? value, double q) => value is not { } ms ? "n/a" : F(ms, "#,0.0") + (PercentileSupport.Supports(l.Samples, q) ? "" : ReportWriter.TooFewMark);
            b.AppendLine(CultureInfo.InvariantCulture,
                $"| {ReportWriter.Label(w)} | {F(w.Operations)} | {F(w.Succeeded)} | {F(w.Failed)} | {F(w.Throttled)} | {F(w.TimedOut)} | {ReportWriter.RateText(w.Throughput)} | {P(l.P50, 0.5)} | {P(l.P99, 0.99)} | {Verified(w.Verified)} |");
        }
        bool marked = s.Workloads.Any(w => w.LatencyMs.Samples > 0 && !PercentileSupport.Supports(w.LatencyMs.Samples, 0.99));
        Line(b, "p50, p99: latency of successful requests, merged over all slices" +
            (marked ? $"; {ReportWriter.TooFewP99Note}." : "."));
        b.AppendLine();
        foreach (var w in s.Workloads)
        {
            string blobs = w.BlobsFailed is > 0 ? $" {F(w.BlobsFailed.Value)} blob(s) not committed." : "";
            string schedule = w.ScheduleLag is { } behind
                ? $" Service time p50 {ServiceTime(w.ServiceTimeMs?.P50)}, p99 {ServiceTime(w.ServiceTimeMs?.P99)} ms. {ReportWriter.Schedule(behind)}"
                : "";
            Line(b, $"- {ReportWriter.Label(w)}: {w.Measures}.{blobs}{ReportWriter.LateStart(w)}{schedule} Verified: {w.Verified.Detail}.");
        }
        if (CostLine(s) is { } cost)
        {
            b.AppendLine();
            b.AppendLine(cost);
        }
        return b.ToString();
    }

    /// <summary>"Cost estimate: USD 0.0123 for the storage requests of this run (not a bill; table and prices: summary.md, --verbose).".</summary>
    public static string? CostLine(RunSummary s) => s.Cost is not { } cost ? null
        : $"Cost estimate: {cost.Prices.Currency} {CostReport.Money(cost.Total)} for the storage requests of this run (not a bill; table and prices: summary.md, --verbose).";

    private static string ServiceTime(double? ms) => ms is { } v ? F(v, "#,0.0") : "n/a";

    /// <summary>"yes", "NO (39,900/40,000)", "not verified", or "none sent" (nothing to verify): the whole sentence is in the workload's note.</summary>
    private static string Verified(VerificationResult v) =>
        v.Matched && v.Expected == 0 && v.Actual == 0 ? "none sent"
        : v.Matched ? "yes" : v.NotVerifiedReason is not null ? VerificationResult.NotVerifiedWords : $"NO ({F(v.Actual)}/{F(v.Expected)})";

    /// <summary>Appends text as lines of at most <see cref="Columns"/>, broken at spaces; a continuation starts at the margin.</summary>
    private static void Line(StringBuilder b, string text)
    {
        while (text.Length > Columns)
        {
            int at = text.LastIndexOf(' ', Columns);
            if (at <= 0)
            {
                break;
            }
            b.AppendLine(text[..at]);
            text = text[(at + 1)..];
        }
        b.AppendLine(text);
    }

    /// <summary>The one line --quiet prints: status, verification and where the summary is.</summary>
    public static string StatusLine(RunSummary s, string summaryFile)
    {
        var unverified = s.Workloads.Where(w => !w.Verified.Matched).Select(ReportWriter.Label).ToList();
        string verified = s.Workloads.Count == 0 ? "no workload ran"
            : unverified.Count == 0 ? "verified"
            : "NOT verified: " + string.Join(", ", unverified);
        if (s.Unmeasured.Count > 0)
        {
            verified += "; no figures: " + string.Join(", ", s.Unmeasured.Select(u => ReportWriter.Label(u.Workload, u.StepParameter, u.StepValue)));
        }
        string errors = s.Errors.Count == 0 ? "" : string.Create(CultureInfo.InvariantCulture, $", {s.Errors.Count} error(s)");
        return $"{s.Status}: run {s.RunId}, {verified}{errors}; {summaryFile}";
    }

    private static string F(double v, string format = "#,0") => v.ToString(format, CultureInfo.InvariantCulture);
}
