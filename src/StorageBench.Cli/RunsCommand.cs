using System.CommandLine;
using System.Globalization;
using System.Text;
using System.Text.Json;
using Azure.Data.Tables;
using StorageBench.Engine;
using StorageBench.Engine.Reports;
using StorageBench.Engine.Workloads;

namespace StorageBench.Cli;

/// <summary>
/// `storagebench runs`: the runs, newest first, filtered. With an account (--connection-string or the STORAGEBENCH_*
/// settings) those of its results table; without one, the local runs: the summary.json
/// files that storagebench run wrote under --results (default out), so a first run on Azurite is listed too.
/// </summary>
public static class RunsCommand
{
    public static Command Create(CliContext cli)
    {
        var connectionString = CliTargets.ConnectionStringOption("the account whose results table is read (default: the STORAGEBENCH_RESULTS_* or STORAGEBENCH_HUB_CONNECTION_STRING setting; with neither, the local runs)");
        var local = CliTargets.LocalResultsOption("without an account: directory of the local runs");
        var scenario = new Option<string?>("--scenario") { Description = "only this scenario", HelpName = "S" };
        var since = DateOption("--since", "only runs started at or after DATE (2026-11-22 or 2026-11-22T02:00:00Z)");
        var until = DateOption("--until", "only runs started before DATE");
        var where = new Option<Threshold[]>("--where")
        {
            Description = "a numeric results column and a bound, e.g. TableEntities>=5000000000 or TableLatencyP99Ms<200; may repeat",
            HelpName = "Column>=Number",
            CustomParser = r => UsageErrors.ParseEach(r, t => RunFilter.ParseThreshold(t), "--where") is { } list ? [.. list] : [],
        };
        var max = new Option<int>("--max")
        {
            Description = "at most N rows", HelpName = "N", DefaultValueFactory = _ => 100,
            CustomParser = r => UsageErrors.ParseEach(r, t => int.TryParse(t, NumberStyles.None, CultureInfo.InvariantCulture, out int n) && n > 0
                ? n : throw new FormatException($"--max: \"{t}\" must be a positive whole number")) is [var n] ? n : 0,
        };
        var command = new Command("runs", "List runs, newest first: an account's results table, or without one the local runs (out/*/summary.json).")
        {
            connectionString, local, scenario, since, until, where, max,
        };
        command.SetAction((r, ct) => RunAsync(r.GetValue(connectionString),
            new RunFilter(r.GetValue(scenario), r.GetValue(since), r.GetValue(until), r.GetValue(where) is { Length: > 0 } w ? w : null),
            r.GetValue(max), cli.Stdout, cli.Stderr, ct, r.GetValue(local)));
        return command;
    }

    public static async Task<int> RunAsync(string? connectionString, RunFilter filter, int max, TextWriter stdout, TextWriter stderr, CancellationToken ct,
        string? localRuns = null)
    {
        if (CliTargets.ResultsTarget(connectionString, out var bad) is not { } results)
        {
            if (bad is not null)
            {
                await stderr.WriteLineAsync("error: " + bad).ConfigureAwait(false);
                return CliApp.UsageError;
            }
            return await LocalAsync(localRuns, filter, max, stdout, stderr).ConfigureAwait(false);
        }
        var rows = await new ResultsTableStore(results).QueryRunsAsync(filter, max, ct).ConfigureAwait(false);
        await stdout.WriteLineAsync(RunsTable(rows)).ConfigureAwait(false);
        return 0;
    }

    /// <summary>The run rows as a Markdown table: identity, then the headline figures of each workload present.</summary>
    public static string RunsTable(IReadOnlyList<TableEntity> rows)
    {
        var b = new StringBuilder();
        // A rate and a p99 column for each workload some row has figures for, in the order a step runs them.
        var kinds = WorkloadKind.All.Where(k => rows.Any(r => r.ContainsKey(WorkloadColumns.Of(k).Operations))).ToList();
        b.AppendLine("| scenario | run | step | started (UTC) | status |" + string.Concat(kinds.Select(k => $" {k.Name} {k.RateHeading} | {k.Name} p99 ms |")) + " verified |");
        b.AppendLine("|---|---|---:|---|---|" + string.Concat(kinds.Select(_ => "---:|---:|")) + "---|");
        bool marked = false;
        foreach (var r in rows)
        {
            string Num(string column, string format) => r.TryGetValue(column, out var v) && v is double d ? d.ToString(format, CultureInfo.InvariantCulture) : "";
            string P99(WorkloadColumns c)
            {
                // Every successful measured request is one latency sample.
                string mark = r.GetInt64(c.Succeeded) is { } samples ? ReportWriter.TooFew(samples, 0.99) : "";
                marked |= mark.Length > 0;
                return Num(c.LatencyP99Ms, "0.0") is { Length: > 0 } p99 ? p99 + mark : "";
            }
            string verified = string.Join(" ", kinds.Select(k => WorkloadColumns.Of(k).Verified).Where(r.ContainsKey).Select(c => r.GetBoolean(c) == true ? "yes" : "NO"));
            string Rate(WorkloadKind k) => r.TryGetValue(WorkloadColumns.Of(k).RateColumn(), out var v) && v is double rate ? k.RowRateText(rate) : "";
            string figures = string.Concat(kinds.Select(k => $" {Rate(k)} | {P99(WorkloadColumns.Of(k))} |"));
            b.AppendLine(CultureInfo.InvariantCulture,
                $"| {r.PartitionKey} | {r.GetString("RunId")} | {Num("StepValue", "0.##")} | {r.GetDateTimeOffset("StartedUtc")?.UtcDateTime:u} | {r.GetString("Status")} |{figures} {verified} |");
        }
        b.Append(CultureInfo.InvariantCulture, $"{rows.Count} run row(s)");
        if (marked)
        {
            b.Append("; " + ReportWriter.TooFewP99Note);
        }
        return b.ToString();
    }

    /// <summary>No account given: the runs whose summary.json is under --results (<paramref name="given"/>, default out), newest first.</summary>
    private static async Task<int> LocalAsync(string? given, RunFilter filter, int max, TextWriter stdout, TextWriter stderr)
    {
        string directory = given ?? "out";
        if (CliTargets.MissingResults(given) is { } missing)
        {
            await stderr.WriteLineAsync("error: " + missing).ConfigureAwait(false);
            return CliApp.UsageError;
        }
        if (filter.Thresholds is { Count: > 0 })
        {
            await stderr.WriteLineAsync("error: --where: filters on the results table's columns; give --connection-string (or the STORAGEBENCH_* settings) to use it").ConfigureAwait(false);
            return CliApp.UsageError;
        }
        var summaries = new List<RunSummary>();
        if (Directory.Exists(directory))
        {
            foreach (string file in Directory.EnumerateFiles(directory, "summary.json", SearchOption.AllDirectories))
            {
                try
                {
                    if (JsonSerializer.Deserialize<RunSummary>(await File.ReadAllTextAsync(file).ConfigureAwait(false), JsonDefaults.Options) is { RunId: not null } s)
                    {
                        summaries.Add(s);
                    }
                }
                catch (JsonException)
                {
                    // not a run's summary: skipped
                }
            }
        }
        var runs = summaries
            .Where(s => (filter.Scenario is null || s.Spec?.Scenario == filter.Scenario) && (filter.SinceUtc is null || s.StartedUtc >= filter.SinceUtc) && (filter.UntilUtc is null || s.StartedUtc < filter.UntilUtc))
            .OrderByDescending(s => s.StartedUtc).Take(max).ToList();
        await stdout.WriteLineAsync($"Local runs in {Path.GetFullPath(directory)} (no --connection-string nor STORAGEBENCH_* settings: an account's results table lists its runs):").ConfigureAwait(false);
        await stdout.WriteLineAsync(LocalRunsTable(runs)).ConfigureAwait(false);
        return 0;
    }

    /// <summary>Local summaries as the stored runs are listed: identity, then each workload's headline figures.</summary>
    public static string LocalRunsTable(IReadOnlyList<RunSummary> runs)
    {
        var b = new StringBuilder();
        b.AppendLine("| scenario | run | started (UTC) | status | workload | throughput | p99 ms | verified |");
        b.AppendLine("|---|---|---|---|---|---:|---:|---|");
        bool marked = false;
        foreach (var s in runs)
        {
            string head = $"| {s.Spec?.Scenario} | {s.RunId} | {s.StartedUtc:u} | {s.Status} |";
            if (s.Workloads.Count == 0)
            {
                b.AppendLine(head + " | | | |");
            }
            foreach (var w in s.Workloads)
            {
                string mark = ReportWriter.TooFew(w.LatencyMs.Samples, 0.99);
                marked |= mark.Length > 0;
                b.AppendLine(CultureInfo.InvariantCulture,
                    $"{head} {ReportWriter.Label(w)} | {ReportWriter.RateText(w.Throughput)} | {w.LatencyMs.P99:0.0}{mark} | {(w.Verified.Matched ? "yes" : "NO")} |");
            }
        }
        b.Append(CultureInfo.InvariantCulture, $"{runs.Count} run(s)");
        if (marked)
        {
            b.Append("; " + ReportWriter.TooFewP99Note);
        }
        return b.ToString();
    }

    private static Option<DateTime?> DateOption(string name, string description) => new(name)
    {
        Description = description, HelpName = "DATE",
        CustomParser = r => UsageErrors.ParseEach(r, t => DateTime.TryParse(t, CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal, out var d)
            ? d : throw new FormatException($"{name}: \"{t}\" is not a date (use 2026-11-22 or 2026-11-22T02:00:00Z)")) is [var d] ? d : null,
    };
}
