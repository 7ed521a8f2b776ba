using System.Globalization;
using StorageBench.Engine.Reports;
using StorageBench.Engine.Statistics;

namespace StorageBench.Cli;

/// <summary>
/// What a run prints on the console. By default: summary.md without its cost section (run line, throughput and
/// latency tables, what each workload measured and how it was verified), and the cost in one line; the cost table,
/// price sources and notes stay in summary.md/html (and print with --verbose).
/// </summary>
public static class ConsoleReport
{
    public static string Default(RunSummary s) =>
        ReportWriter.Markdown(s, withCost: false) + (CostLine(s) is { } cost ? Environment.NewLine + cost + Environment.NewLine : "");

    /// <summary>"Cost estimate: USD 0.0123 for the storage requests of this run (an estimate, not a bill), priced with FILE; ...".</summary>
    public static string? CostLine(RunSummary s) => s.Cost is not { } cost ? null
        : $"Cost estimate: {cost.Prices.Currency} {CostReport.Money(cost.Total)} for the storage requests of this run (an estimate, not a bill), " +
          $"priced with {cost.Prices.File}; the cost table and price sources are in summary.md (or run with --verbose).";

    /// <summary>The one line --quiet prints: status, verification and where the summary is.</summary>
    public static string StatusLine(RunSummary s, string summaryFile)
    {
        var unverified = s.Workloads.Where(w => !w.Verified.Matched).Select(ReportWriter.Label).ToList();
        string verified = s.Workloads.Count == 0 ? "no workload ran"
            : unverified.Count == 0 ? "verified"
            : "NOT verified: " + string.Join(", ", unverified);
        string errors = s.Errors.Count == 0 ? "" : string.Create(CultureInfo.InvariantCulture, $", {s.Errors.Count} error(s)");
        return $"{s.Status}: run {s.RunId}, {verified}{errors}; {summaryFile}";
    }
}
