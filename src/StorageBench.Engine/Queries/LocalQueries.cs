using System.Globalization;
using System.Text;
using System.Text.Json;
using StorageBench.Engine.Telemetry;

namespace StorageBench.Engine.Queries;

/// <summary>A query result: column names and rows of formatted cells.</summary>
public sealed record QueryTable(IReadOnlyList<string> Columns, IReadOnlyList<IReadOnlyList<string>> Rows)
{
    public string ToMarkdown()
    {
        var b = new StringBuilder();
        b.AppendLine("| " + string.Join(" | ", Columns) + " |");
        b.AppendLine("|" + string.Concat(Columns.Select(_ => "---|")));
        foreach (var row in Rows)
        {
            b.AppendLine("| " + string.Join(" | ", row) + " |");
        }
        b.Append(CultureInfo.InvariantCulture, $"{Rows.Count} row(s)");
        return b.ToString();
    }
}

/// <summary>
/// The query pack's main queries, run locally over the runs in an output folder (its summary.json
/// files, turned into the same AppEvents rows the telemetry sends).
///
/// SUBSTITUTION: queries/*.kql cannot be executed here — no KQL engine is available to this build
/// (KustoLoco is not on the package mirror; the Kusto.Language npm build only parses and checks).
/// Each query below is the C# equivalent of the .kql file of the same name; keep them in step.
/// </summary>
public static class LocalQueries
{
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    public static readonly IReadOnlyDictionary<string, Func<IReadOnlyList<AppEvent>, QueryTable>> Named = new Dictionary<string, Func<IReadOnlyList<AppEvent>, QueryTable>>
    {
        ["runs"] = Runs,
        ["throughput-trend"] = ThroughputTrend,
        ["latency-trend"] = LatencyTrend,
        ["throttling-share"] = ThrottlingShare,
        ["sweep-curve"] = SweepCurve,
    };

    /// <summary>Every summary.json below <paramref name="directory"/>, as AppEvents rows.</summary>
    public static IReadOnlyList<AppEvent> LoadEvents(string directory)
    {
        if (!Directory.Exists(directory))
        {
            return [];
        }
        return [.. Directory.EnumerateFiles(directory, "summary.json", SearchOption.AllDirectories)
            .Select(f => JsonSerializer.Deserialize<RunSummary>(File.ReadAllText(f), JsonDefaults.Options)!)
            .SelectMany(TelemetryEvents.From)];
    }

    private static QueryTable Runs(IReadOnlyList<AppEvent> events) => new(
        ["TimeGenerated", "scenario", "runId", "status", "targetKind", "host", "durationSeconds", "instances", "workers", "errors"],
        [.. events.Where(e => e.Name == TelemetryEmitter.RunEvent).OrderByDescending(e => e.TimeGenerated).Select(e => (IReadOnlyList<string>)
            [Time(e), P(e, "scenario"), P(e, "runId"), P(e, "status"), P(e, "targetKind"), P(e, "host"), M(e, "durationSeconds", "0.0"), M(e, "instances", "0"), M(e, "workers", "0"), P(e, "errors")])]);

    private static QueryTable ThroughputTrend(IReadOnlyList<AppEvent> events) => new(
        ["TimeGenerated", "series", "throughput", "unit"],
        [.. Workloads(events, steps: false).OrderBy(e => e.TimeGenerated).Select(e => (IReadOnlyList<string>)
            [Time(e), Series(e), Throughput(e).ToString("0.##", Inv), WorkloadKind.Find(P(e, "workload"))?.RateUnit ?? ""])]);

    private static QueryTable LatencyTrend(IReadOnlyList<AppEvent> events) => new(
        ["TimeGenerated", "series", "p50Ms", "p99Ms", "p999Ms"],
        [.. Workloads(events, steps: false).OrderBy(e => e.TimeGenerated).Select(e => (IReadOnlyList<string>)
            [Time(e), Series(e), M(e, "latencyP50Ms", "0.###"), M(e, "latencyP99Ms", "0.###"), M(e, "latencyP999Ms", "0.###")])]);

    private static QueryTable ThrottlingShare(IReadOnlyList<AppEvent> events) => new(
        ["TimeGenerated", "series", "throttledShare"],
        [.. events.Where(e => e.Name == TelemetryEmitter.WorkloadEvent)
            .GroupBy(e => (Day: e.TimeGenerated.Date, Series: Series(e)))
            .OrderBy(g => g.Key.Day)
            .Select(g =>
            {
                double operations = g.Sum(e => e.Measurements["operations"]);
                double share = operations > 0 ? g.Sum(e => e.Measurements["throttled"]) / operations : 0;
                return (IReadOnlyList<string>)[g.Key.Day.ToString("yyyy-MM-dd", Inv), g.Key.Series, share.ToString("0.####", Inv)];
            })]);

    private static QueryTable SweepCurve(IReadOnlyList<AppEvent> events)
    {
        var steps = Workloads(events, steps: true).ToList();
        string? latestRun = steps.MaxBy(e => e.TimeGenerated) is { } last ? P(last, "runId") : null;
        return new(["value", "throughput", "p99Ms", "parameter", "workload", "scenario", "runId"],
            [.. steps.Where(e => P(e, "runId") == latestRun).OrderBy(e => double.Parse(P(e, "stepValue"), Inv)).Select(e => (IReadOnlyList<string>)
                [P(e, "stepValue"), Throughput(e).ToString("0.##", Inv), M(e, "latencyP99Ms", "0.###"), P(e, "stepParameter"), P(e, "workload"), P(e, "scenario"), P(e, "runId")])]);
    }

    private static IEnumerable<AppEvent> Workloads(IReadOnlyList<AppEvent> events, bool steps) =>
        events.Where(e => e.Name == TelemetryEmitter.WorkloadEvent && (P(e, "stepParameter").Length > 0) == steps);

    private static double Throughput(AppEvent e) =>
        WorkloadKind.Find(P(e, "workload")) is { } kind ? e.Measurements.GetValueOrDefault(kind.RateMeasurement) : 0;

    private static string Series(AppEvent e) => $"{P(e, "scenario")} / {P(e, "workload")}";

    private static string P(AppEvent e, string name) => e.Properties.GetValueOrDefault(name, "");

    private static string M(AppEvent e, string name, string format) => e.Measurements.TryGetValue(name, out var v) ? v.ToString(format, Inv) : "";

    private static string Time(AppEvent e) => e.TimeGenerated.ToString("yyyy-MM-dd HH:mm:ss", Inv);
}
