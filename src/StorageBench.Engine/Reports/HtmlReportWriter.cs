using System.Globalization;
using System.Text;
using StorageBench.Engine.Comparison;

namespace StorageBench.Engine.Reports;

/// <summary>
/// summary.html: one self-contained page (inline CSS and SVG, no script, no external resource) with
/// the tables of summary.md, each workload's latency distribution and per-second throughput, and for
/// sweeps and searches throughput and p99 against the stepped parameter.
/// </summary>
public static class HtmlReportWriter
{
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <param name="plan">A capacity plan's operating point to mark on this run's sweep or search curve (storagebench plan), if any.</param>
    public static string Render(RunSummary s, PlanMark? plan = null)
    {
        var b = new StringBuilder();
        b.Append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>StorageBench ")
            .Append(SvgChart.Esc(s.RunId)).Append("</title><style>")
            .Append("body{font-family:sans-serif;margin:24px;color:#222;max-width:1100px}table{border-collapse:collapse;margin:8px 0 16px}")
            .Append("td,th{border:1px solid #ccc;padding:3px 7px;font-size:13px;text-align:right}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}")
            .Append("figure{margin:12px 0}figcaption{font-weight:bold;margin-bottom:4px}.bad{color:#b00}.note{color:#555;font-style:italic}")
            .Append("</style></head><body>");
        b.Append(Inv, $"<h1>StorageBench run {SvgChart.Esc(s.RunId)} — <span class=\"{(s.Status == RunStatus.Completed ? "" : "bad")}\">{s.Status}</span></h1>");
        b.Append(Inv, $"<p>Scenario <b>{SvgChart.Esc(s.Spec?.Scenario ?? "")}</b> · target {SvgChart.Esc(s.Environment.TargetKind)} · host {SvgChart.Esc(s.Environment.Host)} on {SvgChart.Esc(s.Environment.Machine)} ({s.Environment.ProcessorCount} cores, {SvgChart.Esc(s.Environment.Runtime)}) · {s.Environment.Instances} instance(s) · {s.StartedUtc:u} to {s.EndedUtc:u}</p>");
        foreach (var e in s.Errors)
        {
            b.Append("<p class=\"bad\">error: ").Append(SvgChart.Esc(e)).Append("</p>");
        }
        if (s.Regression is { } r)
        {
            b.Append(Inv, $"<p>Regression check: <b class=\"{(r.Outcome == ChangeOutcome.Worse ? "bad" : "")}\">{r.Verdict}</b> against {r.BaselineRuns} earlier run(s): {SvgChart.Esc(r.Reason)}</p>");
        }
        // The same tables as summary.md, rendered from its Markdown so the two never disagree; the
        // cost section goes last, after the charts, as it is about the bill, not the performance.
        b.Append(MarkdownTables(ReportWriter.Markdown(s, withCost: false)));

        var steps = s.Workloads.Where(w => w.StepParameter is not null).GroupBy(w => w.Workload).ToList();
        foreach (var g in steps)
        {
            b.Append(StepCurve(g.Key, [.. g.OrderBy(w => w.StepValue)], s.Saturation, plan));
        }

        foreach (var w in s.Workloads)
        {
            string label = ReportWriter.Label(w);
            string id = $"{w.Workload}-{w.StepValue?.ToString(Inv) ?? "run"}".Replace('.', '_');
            b.Append(Inv, $"<h2>{SvgChart.Esc(label)}</h2>");
            var (bins, overflow) = ChartRules.Histogram(w.LatencyDistribution);
            string axis = overflow is null ? "" : string.Create(Inv, $"; axis to p99.9 ({w.LatencyMs.P999:0.###} ms), the {overflow.Count:N0} slower in the last bin");
            string from = w.ScheduleLag is null ? "" : ", each timed from its slot in the open loop's schedule (the wait included)";
            b.Append(SvgChart.Bars($"latency-{id}", $"{label}: latency distribution of {w.LatencyMs.Samples:N0} successful requests{from}{axis}", "latency (ms)", "requests",
                [.. bins.Select(x => (x.FromMs, x.ToMs, (double)x.Count))], overflow is null ? null : (overflow.FromMs, overflow.ToMs, overflow.Count)));
            if (ChartRules.NoTimelineReason(w) is { } noTimeline)
            {
                b.Append(Inv, $"<p class=\"note\" id=\"no-timeline-{SvgChart.Esc(id)}\">{SvgChart.Esc(noTimeline)}</p>");
                continue;
            }
            long first = w.Timeline.StartUnixSecond;
            var kind = WorkloadKind.Of(w.Workload);
            int bucket = w.Timeline.BucketSeconds;
            string per = bucket == 1 ? "per UTC second" : $"per {bucket}-second bucket, as a rate per second";
            b.Append(SvgChart.Lines($"timeline-{id}", $"{label}: throughput {per}, all slices (the first and last buckets are partial)", "seconds since the first", kind.RateUnit, null,
                [new ChartSeries($"{kind.Unit} per second", "#59a14f",
                    [.. w.Timeline.Points().Select(p => ((double)(p.UnixSecond - first), p.Units / kind.CountedPerUnit / bucket))])], minXStep: bucket));
        }
        var cost = new StringBuilder("\n");   // MarkdownTables skips a title line
        CostReport.AppendMarkdown(cost, s);
        if (cost.Length > 1)
        {
            b.Append("<h2>Cost</h2>").Append(MarkdownTables(cost.ToString()));
        }
        b.Append("</body></html>");
        return b.ToString();
    }

    /// <summary>
    /// A sweep's or search's curve: throughput, and the p50 and p99 of the steps whose sample count supports them
    /// (PercentileSupport; the others are named under the chart), each step's sample count under its value, and a
    /// search's highest useful value and knee.
    /// </summary>
    private static string StepCurve(string workload, IReadOnlyList<WorkloadSummary> points, SaturationResult? saturation, PlanMark? plan)
    {
        var kind = WorkloadKind.Of(workload);
        string parameter = points[0].StepParameter!;
        var rate = points.Select(w => (w.StepValue!.Value, kind.RateOf(w.Throughput) ?? 0)).ToList();
        bool logX = points.Count > 2 && points[^1].StepValue > 8 * Math.Max(points[0].StepValue!.Value, 1e-9);
        // An open loop's latency includes the wait for its slot: the legend says so.
        string from = points.Any(w => w.ScheduleLag is not null) ? " from slots" : "";
        List<ChartSeries> series =
        [
            new($"throughput ({kind.RateUnit})", "#4e79a7", rate),
            new($"p50 latency{from} (ms)", "#76b7b2", ChartRules.SupportedPercentile(points, 0.50, l => l.P50), RightAxis: true),
            new($"p99 latency{from} (ms)", "#e15759", ChartRules.SupportedPercentile(points, 0.99, l => l.P99), RightAxis: true),
        ];
        bool planned = plan is not null && plan.Workload == workload && plan.Parameter == parameter;
        if (planned)
        {
            series.Add(new ChartSeries(plan!.Label, "#f28e2b", [(plan.X, plan.Y)]));
        }
        List<ChartMarker> markers = [];
        if (saturation is not null && saturation.Parameter == parameter)
        {
            if (saturation.HighestSustainableValue is { } highest)
            {
                markers.Add(new ChartMarker(highest, string.Create(Inv, $"highest useful {highest:0.##}"), "#59a14f"));
            }
            if (saturation.KneeValue is { } knee)
            {
                markers.Add(new ChartMarker(knee, string.Create(Inv, $"knee {knee:0.##}"), "#b07aa1"));
            }
        }
        var b = new StringBuilder(SvgChart.Lines($"sweep-{workload}", $"{workload}: throughput, p50 and p99 latency against {parameter} (n = successful requests behind each step's percentiles)",
            parameter, kind.RateUnit, "latency ms", series, logX, markers,
            [.. points.Select(w => (w.StepValue!.Value, string.Create(Inv, $"n={w.LatencyMs.Samples:N0}")))]));
        foreach (var q in new[] { 0.50, 0.99 })
        {
            if (ChartRules.LeftOut(points, q) is { } leftOut)
            {
                b.Append("<p class=\"note\">").Append(SvgChart.Esc(leftOut)).Append("</p>");
            }
        }
        if (planned)
        {
            b.Append("<p>").Append(SvgChart.Esc(plan!.Description)).Append("</p>");
        }
        return b.ToString();
    }

    /// <summary>Turns the Markdown's pipe tables into HTML tables and its other lines into paragraphs.</summary>
    private static string MarkdownTables(string markdown)
    {
        var b = new StringBuilder();
        bool inTable = false, header = false;
        foreach (var raw in markdown.Split('\n').Skip(1))
        {
            string line = raw.TrimEnd('\r');
            if (line.StartsWith('|'))
            {
                var cells = line.Trim('|').Split('|').Select(c => SvgChart.Esc(c.Trim())).ToList();
                if (cells.All(c => c.Trim('-', ':').Length == 0))
                {
                    continue;
                }
                if (!inTable)
                {
                    b.Append("<table>");
                    inTable = header = true;
                }
                string tag = header ? "th" : "td";
                b.Append("<tr>").Append(string.Concat(cells.Select(c => $"<{tag}>{c}</{tag}>"))).Append("</tr>");
                header = false;
                continue;
            }
            if (inTable)
            {
                b.Append("</table>");
                inTable = false;
            }
            if (line.Length > 0 && !line.StartsWith("Scenario ", StringComparison.Ordinal) && !line.StartsWith("Started ", StringComparison.Ordinal) && !line.StartsWith("- error", StringComparison.Ordinal))
            {
                b.Append("<p>").Append(SvgChart.Esc(line.TrimStart('-', ' '))).Append("</p>");
            }
        }
        return b.Append(inTable ? "</table>" : "").ToString();
    }
}

/// <summary>
/// Where a capacity plan operates on a sweep's or search's curve: at the measured step it scales out (<paramref name="X"/>),
/// at the rate the plan asks of that step's slices (<paramref name="Y"/>, in the curve's unit).
/// </summary>
public sealed record PlanMark(string Workload, string Parameter, double X, double Y, string Label, string Description);
