using System.Globalization;
using System.Text;

namespace StorageBench.Engine.Reports;

/// <summary>Where the work ran: one row per worker process of each workload, in summary.md (and so the HTML report) when more than one worker ran slices.</summary>
public static class WorkerTable
{
    public static void AppendMarkdown(StringBuilder b, RunSummary s)
    {
        var rows = s.Workloads.Where(w => w.PerWorker.Count > 1).ToList();
        if (rows.Count == 0)
        {
            return;
        }
        b.AppendLine();
        b.AppendLine(CultureInfo.InvariantCulture, $"Per worker ({s.Environment.Workers} worker process(es) on {s.Environment.Instances} instance(s); rates over each worker's own window):");
        b.AppendLine();
        b.AppendLine("| workload | worker | slices | units | rate | driver CPU |");
        b.AppendLine("|---|---|---:|---:|---:|---:|");
        foreach (var w in rows)
        {
            var kind = WorkloadKind.Of(w.Workload);
            foreach (var p in w.PerWorker)
            {
                string cpu = p.CpuMicrosecondsPerUnit is { } c ? $"{c.ToString(kind.CpuFormat, CultureInfo.InvariantCulture)} {kind.CpuUnit}" : "n/a";
                string units = kind.UnitsText(p.Units);
                b.AppendLine(CultureInfo.InvariantCulture,
                    $"| {ReportWriter.Label(w)} | {p.Worker} | {p.Slices} | {units} | {p.UnitsPerSecond.ToString(kind.RateFormat, CultureInfo.InvariantCulture)} {kind.RateUnit} | {cpu} |");
            }
        }
    }
}
