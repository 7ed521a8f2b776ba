using System.CommandLine;
using System.Globalization;
using System.Text;
using Azure.Data.Tables;
using StorageBench.Engine.ResultsStore;

namespace StorageBench.Cli;

/// <summary>`storagebench runs`: the stored runs, newest first within a scenario, filtered.</summary>
public static class RunsCommand
{
    public static Command Create(CliContext cli)
    {
        var connectionString = CliTargets.ConnectionStringOption("the account whose results table is read (default: the STORAGEBENCH_* settings)");
        var scenario = new Option<string?>("--scenario") { Description = "only this scenario", HelpName = "S" };
        var since = DateOption("--since", "only runs started at or after DATE (2026-11-22 or 2026-11-22T02:00:00Z)");
        var until = DateOption("--until", "only runs started before DATE");
        var where = new Option<Threshold[]>("--where")
        {
            Description = "a numeric results column and a bound, e.g. TableEntities>=5000000000 or TableLatencyP99Ms<200; may repeat",
            HelpName = "Column>=Number",
            CustomParser = r => UsageErrors.ParseEach(r, t => RunFilter.ParseThreshold(t)) is { } list ? [.. list] : [],
        };
        var max = new Option<int>("--max")
        {
            Description = "at most N rows (default 100)", HelpName = "N", DefaultValueFactory = _ => 100,
            CustomParser = r => UsageErrors.ParseEach(r, t => int.TryParse(t, NumberStyles.None, CultureInfo.InvariantCulture, out int n) && n > 0
                ? n : throw new FormatException($"--max: \"{t}\" must be a positive whole number")) is [var n] ? n : 0,
        };
        var command = new Command("runs", "List stored runs, newest first within a scenario.") { connectionString, scenario, since, until, where, max };
        command.SetAction((r, ct) => RunAsync(r.GetValue(connectionString),
            new RunFilter(r.GetValue(scenario), r.GetValue(since), r.GetValue(until), r.GetValue(where) is { Length: > 0 } w ? w : null),
            r.GetValue(max), cli.Stdout, cli.Stderr, ct));
        return command;
    }

    public static async Task<int> RunAsync(string? connectionString, RunFilter filter, int max, TextWriter stdout, TextWriter stderr, CancellationToken ct)
    {
        if (CliTargets.ResultsTarget(connectionString, out var bad) is not { } results)
        {
            await stderr.WriteLineAsync("error: " + (bad ?? "--connection-string: required (the results table lives in a storage account), or the STORAGEBENCH_TARGET_* settings")).ConfigureAwait(false);
            return CliApp.UsageError;
        }
        var rows = await new ResultsTableStore(results).QueryRunsAsync(filter, max, ct).ConfigureAwait(false);
        await stdout.WriteLineAsync(RunsTable(rows)).ConfigureAwait(false);
        return 0;
    }

    /// <summary>The run rows as a Markdown table: identity, then the headline figures of each workload present.</summary>
    public static string RunsTable(IReadOnlyList<TableEntity> rows)
    {
        var b = new StringBuilder();
        b.AppendLine("| scenario | run | step | started (UTC) | status | table entities/s | table p99 ms | blob MB/s | blob p99 ms | verified |");
        b.AppendLine("|---|---|---:|---|---|---:|---:|---:|---:|---|");
        foreach (var r in rows)
        {
            string Num(string column, string format) => r.TryGetValue(column, out var v) && v is double d ? d.ToString(format, CultureInfo.InvariantCulture) : "";
            string verified = string.Join(" ", new[] { "TableVerified", "BlobVerified" }.Where(r.ContainsKey).Select(c => r.GetBoolean(c) == true ? "yes" : "NO"));
            b.AppendLine(CultureInfo.InvariantCulture,
                $"| {r.PartitionKey} | {r.GetString("RunId")} | {Num("StepValue", "0.##")} | {r.GetDateTimeOffset("StartedUtc")?.UtcDateTime:u} | {r.GetString("Status")} | {Num("TableEntitiesPerSecond", "0.0")} | {Num("TableLatencyP99Ms", "0.0")} | {Num("BlobMegabytesPerSecond", "0.00")} | {Num("BlobLatencyP99Ms", "0.0")} | {verified} |");
        }
        b.Append(CultureInfo.InvariantCulture, $"{rows.Count} run row(s)");
        return b.ToString();
    }

    private static Option<DateTime?> DateOption(string name, string description) => new(name)
    {
        Description = description, HelpName = "DATE",
        CustomParser = r => UsageErrors.ParseEach(r, t => DateTime.TryParse(t, CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal, out var d)
            ? d : throw new FormatException($"{name}: \"{t}\" is not a date (use 2026-11-22 or 2026-11-22T02:00:00Z)")) is [var d] ? d : null,
    };
}
