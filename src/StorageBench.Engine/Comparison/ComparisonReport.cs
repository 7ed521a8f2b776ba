using System.Globalization;
using System.Text;

namespace StorageBench.Engine.Comparison;

/// <summary>
/// A comparison as Markdown (compare --out, the API) and as a plain console table: the same rows, the same words. What the reader
/// can do about runs of different specs is the entry point's to say (<c>judgeAnyway</c>: the CLI's flag, the API's parameter).
/// </summary>
public static class ComparisonReport
{
    public static readonly string[] Header = ["workload", "metric", "unit", "baseline", "candidate", "change", "change %", "noise band", "verdict"];

    /// <param name="judgeAnyway">How the reader has runs of different specs judged, in the entry point's terms: "give --judge-different-specs".</param>
    public static string Markdown(RunComparison c, string judgeAnyway)
    {
        var b = new StringBuilder();
        b.AppendLine(CultureInfo.InvariantCulture, $"# StorageBench comparison: {c.Baseline.RunId} → {c.Candidate.RunId}");
        b.AppendLine();
        b.AppendLine("| | run | read from | scenario | status | started (UTC) |");
        b.AppendLine("|---|---|---|---|---|---|");
        foreach (var (role, run) in Runs(c))
        {
            b.AppendLine(CultureInfo.InvariantCulture, $"| {role} | {run.RunId} | {run.Source} | {run.Scenario} | {run.Status} | {run.StartedUtc:u} |");
        }
        b.AppendLine();
        b.AppendLine(CultureInfo.InvariantCulture, $"**Verdict: {c.Verdict()}.**");
        foreach (string note in Notes(c, judgeAnyway))
        {
            b.AppendLine(CultureInfo.InvariantCulture, $"- {note}");
        }
        b.AppendLine();
        b.AppendLine(c.Rule.Describe());
        foreach (var w in c.Workloads)
        {
            b.AppendLine();
            b.AppendLine(CultureInfo.InvariantCulture, $"## {w.Label}");
            b.AppendLine();
            b.AppendLine(SpreadLine(w, c.Rule));
            b.AppendLine();
            b.AppendLine("| " + string.Join(" | ", Header[1..]) + " |");
            b.AppendLine("|---|---|---:|---:|---:|---:|---:|---|");
            foreach (var m in w.Metrics)
            {
                b.AppendLine("| " + string.Join(" | ", Cells(m)) + " |");
            }
        }
        return b.ToString();
    }

    /// <summary>Aligned plain-text columns, one row per metric of every workload and step, then the verdict and the rule.</summary>
    /// <param name="judgeAnyway">As for <see cref="Markdown"/>.</param>
    public static string ConsoleTable(RunComparison c, string judgeAnyway)
    {
        var b = new StringBuilder();
        foreach (var (role, run) in Runs(c))
        {
            b.AppendLine(CultureInfo.InvariantCulture, $"{role,-9}  {run.RunId}  ({run.Source}; scenario {run.Scenario}; {run.Status}; started {run.StartedUtc:u})");
        }
        b.AppendLine();
        var rows = new List<string[]> { Header };
        rows.AddRange(c.Workloads.SelectMany(w => w.Metrics.Select(m => (string[])[w.Label, .. Cells(m)])));
        int[] widths = [.. Enumerable.Range(0, Header.Length).Select(i => rows.Max(r => r[i].Length))];
        foreach (var row in rows)
        {
            // Text columns to the left, numbers to the right, as in the Markdown.
            b.AppendLine(string.Join("  ", row.Select((cell, i) => i is >= 3 and <= 7 ? cell.PadLeft(widths[i]) : cell.PadRight(widths[i]))).TrimEnd());
        }
        b.AppendLine();
        foreach (var w in c.Workloads)
        {
            b.AppendLine(CultureInfo.InvariantCulture, $"{w.Label}: {SpreadLine(w, c.Rule)}");
        }
        b.AppendLine(CultureInfo.InvariantCulture, $"verdict: {c.Verdict()}");
        foreach (string note in Notes(c, judgeAnyway))
        {
            b.AppendLine(note);
        }
        b.Append(c.Rule.Describe());
        return b.ToString();
    }

    private static (string Role, RunFigures Run)[] Runs(RunComparison c) => [("baseline", c.Baseline), ("candidate", c.Candidate)];

    /// <summary>What the reader must know besides the table: runs that did not complete, and what was not compared.</summary>
    private static IEnumerable<string> Notes(RunComparison c, string judgeAnyway)
    {
        foreach (var (role, run) in Runs(c).Where(r => r.Run.Status != RunStatus.Completed))
        {
            yield return $"warning: the {role} run is {run.Status}: its figures may not be comparable";
        }
        if (!c.SpecsKnown)
        {
            yield return "the specs could not be checked: a run read from the results table before specs were stored there has none";
        }
        if (c.SpecDifferences.Count > 0)
        {
            yield return $"the specs differ ({(c.NotJudgedForSpecs ? $"not judged; {judgeAnyway} to judge anyway" : "judged anyway, as asked")}): {string.Join("; ", c.SpecDifferences)}";
        }
        foreach (var w in c.Workloads)
        {
            foreach (var group in w.Metrics.Where(m => m.NotJudgedReason is not null && !c.NotJudgedForSpecs).GroupBy(m => m.NotJudgedReason))
            {
                yield return $"{w.Label}: {string.Join(", ", group.Select(m => m.Metric))} not judged: {group.Key}";
            }
            if (w.Throughput.FromHistory)
            {
                yield return string.Create(CultureInfo.InvariantCulture,
                    $"{w.Label}: throughput's band (±{w.Throughput.Band:0.0%}) is from the run-to-run spread of earlier runs of the scenario in the results table");
            }
        }
        foreach (string line in MachineLines(c.Baseline.Environment, c.Candidate.Environment))
        {
            yield return line;
        }
        if (c.OnlyInBaseline.Count > 0)
        {
            yield return $"only in the baseline, not compared: {string.Join(", ", c.OnlyInBaseline)}";
        }
        if (c.OnlyInCandidate.Count > 0)
        {
            yield return $"only in the candidate, not compared: {string.Join(", ", c.OnlyInCandidate)}";
        }
    }

    /// <summary>The machine's state and the tool's build of each run, side by side, and a warning when they differed.</summary>
    public static IEnumerable<string> MachineLines(RunEnvironment? a, RunEnvironment? b)
    {
        static string N(double? v, string f) => v?.ToString(f, CultureInfo.InvariantCulture) ?? "n/a";
        static string Side(RunEnvironment? e) => e is null ? "not recorded"
            : $"load {N(e.LoadAverageStart, "0.0")} → {N(e.LoadAverageEnd, "0.0")}, other processes' CPU {N(e.OtherProcessesCpuShare, "0%")}, " +
              $"tool {e.ToolVersion ?? "n/a"} {e.ToolCommit ?? ""}, emulator {e.EmulatorVersion ?? "n/a"}";
        yield return $"machine: baseline {Side(a)}; candidate {Side(b)}";
        foreach (string warning in MachineComparison.Warnings([a], [b]))
        {
            yield return "warning: " + warning;
        }
    }

    /// <summary>Each side's per-second rate and standard error, or why the floors alone are the band.</summary>
    private static string SpreadLine(WorkloadComparison w, NoiseRule rule)
    {
        string unit = w.Throughput.Unit;
        string Side(string role, RateSpread? s) => s is null
            ? $"{role}: no per-second spread (written before it was recorded, or under two whole seconds with every slice active)"
            : string.Create(CultureInfo.InvariantCulture,
                $"{role}: {s.Mean:#,0.0##} {unit} ± {s.SecondToSecondDeviation:#,0.0##} second to second over {s.Samples} s, standard error {s.RelativeStandardError() ?? 0:0.0%}")
              + (rule.Usable(s) is null ? $" (under {rule.MinSamples} s: too short to judge)" : "");
        string how = w.Throughput.NoiseEstimated ? "" : "; without a usable spread on both sides, throughput, the peak, latency and CPU are not judged";
        return $"Per-second rate while all slices were active — {Side("baseline", w.BaselineSpread)}; {Side("candidate", w.CandidateSpread)}{how}.";
    }

    /// <summary>One metric's row, after the workload column of <see cref="Header"/>: what the table, the console and the runs API show.</summary>
    public static string[] Cells(MetricChange m)
    {
        bool share = m.Kind == NoiseKind.Share;
        string Value(double? v, long? count) => v is not { } x ? "n/a" : share ? $"{F(count ?? 0, "#,0")} ({F(x * 100, "0.00")}%)" : F(x, Format(m.Unit));
        string change = m.Change is not { } d ? "n/a" : share ? Signed(d * 100, "0.00") + " pt" : Signed(d, Format(m.Unit));
        string relative = share || m.RelativeChange is not { } r ? "" : Signed(r * 100, "0.0") + "%";
        string band = m.Band is not { } x || m.NotJudgedReason is not null ? "" : share ? $"±{F(x * 100, "0.00")} pt"
            : $"±{F(x * 100, "0.0")}%" + (x <= m.Floor ? " (floor)" : "");
        return [m.Metric, m.Unit, Value(m.Baseline, m.BaselineCount), Value(m.Candidate, m.CandidateCount), change, relative, band, m.Verdict];
    }

    private static string Format(string unit) => WorkloadKind.All.FirstOrDefault(k => k.RateUnit == unit)?.RateFormat ?? (unit == "ms" ? "#,0.0##" : "#,0.0");

    private static string Signed(double v, string format) => (v > 0 ? "+" : "") + F(v, format);

    private static string F(double v, string format) => v.ToString(format, CultureInfo.InvariantCulture);
}
