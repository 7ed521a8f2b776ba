using System.Reflection;
using System.Text.Json;
using Azure;
using StorageBench.Engine;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Preflight;
using StorageBench.Engine.Queries;
using StorageBench.Engine.Reports;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.StorageCalls;
using StorageBench.Engine.Telemetry;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration;
using StorageBench.Orchestration.Hosting;

namespace StorageBench.Cli;

/// <summary>The local entry point: parse arguments, validate the spec, start Azurite, run, report. No benchmark logic.</summary>
public static class CliApp
{
    public const string Usage = """
        usage: storagebench run [--spec FILE] [--out DIR [--force]] [--connection-string CS] [--prices FILE]
          --spec FILE              run spec JSON (default: the built-in quick scenario, specs/quick.json)
          --out DIR                where summary.json, summary.md and summary.html go (default: out/<runId>);
                                   a folder that already holds a summary.json is refused unless --force
          --connection-string CS   storage account to test (default: the STORAGEBENCH_TARGET_* settings
                                   if set, else Azurite started on loopback)
          --prices FILE            price table of the cost estimate (default: the STORAGEBENCH_PRICES_FILE
                                   setting if set, else the built-in pricing/azure-storage-prices.json)
          with APPLICATIONINSIGHTS_CONNECTION_STRING set, the run is also sent to Application Insights
        usage: storagebench runs --connection-string CS [--scenario S] [--since DATE] [--until DATE]
                                 [--where "Column>=Number"]... [--max N]
          lists stored runs, newest first within a scenario; --where filters on a numeric results
          column (e.g. TableEntities>=5000000000, TableLatencyP99Ms<200)
        usage: storagebench serve [--port N] [--connection-string CS] [--prices FILE]
          the runs API on 127.0.0.1 (default port 7071): POST /api/runs with a spec, GET /api/runs/{id},
          POST /api/runs/{id}/cancel, GET /api/runs?scenario=S&last=N
        usage: storagebench cleanup [--older-than AGE] [--dry-run] [--connection-string CS]
          deletes this tool's leftover tables and containers (a driver killed mid-run leaves its step's
          behind): only names of the form sbt/sbb + yyyyMMddHHmmss + step id, created more than AGE ago
          (default 25h: no run lives longer; e.g. 30m, 6h, 2d); never anything else in the account.
          --dry-run lists what it would delete and deletes nothing
        usage: storagebench query NAME [--results DIR]
          runs a named query over the local runs in DIR (default: out): runs, throughput-trend,
          latency-trend, throttling-share, sweep-curve (C# equivalents of queries/NAME.kql)
        usage: storagebench compare BASELINE CANDIDATE [--connection-string CS] [--fail-if-slower PERCENT] [--out FILE.md] [--judge-different-specs]
          compares two runs metric by metric (sweeps step by step), each change against the runs' own noise;
          BASELINE and CANDIDATE are run ids in the results table (of --connection-string or the STORAGEBENCH_*
          settings) or summary.json files (or their out/<runId> directories); --out also writes the comparison
          as Markdown; --fail-if-slower: exit 1 when a throughput is lower by more than PERCENT and beyond noise;
          steps too short to resolve are not judged, nor runs of different specs unless --judge-different-specs
        usage: storagebench ab --baseline SPEC --candidate SPEC [--rounds N] [--order alternate|random] [--seed N]
                               [--threshold PERCENT] [--fail-if-slower PERCENT] [--out FILE.md] [--runs-dir DIR]
                               [--connection-string CS] [--prices FILE]
          runs the two specs alternately on one target, N rounds (default 6, at least 4) of one run each, and judges
          candidate / baseline of throughput, p50 and p99 with a 95 % confidence interval (docs/comparing.md)
        exit codes: 0 completed and verified, 1 run failed or unverified, 2 bad arguments or spec;
          compare: 0 compared, 1 slower than --fail-if-slower allows, 2 bad arguments
        """;

    private static readonly string[] RunOptions = ["--spec", "--out", "--force", "--connection-string", "--prices"];
    private static readonly string[] RunsOptions = ["--connection-string", "--scenario", "--since", "--until", "--where", "--max"];
    private static readonly string[] QueryOptions = ["--results"];
    private static readonly string[] ServeOptions = ["--port", "--connection-string", "--prices"];
    private static readonly string[] CleanupOptions = ["--older-than", "--dry-run", "--connection-string"];
    private static readonly string[] CompareOptions = ["--connection-string", "--fail-if-slower", "--out", "--judge-different-specs"];
    private static readonly string[] AbOptionNames = ["--baseline", "--candidate", "--rounds", "--order", "--seed", "--threshold", "--fail-if-slower", "--out", "--runs-dir", "--connection-string", "--prices"];

    /// <summary>Options that take no value.</summary>
    private static readonly string[] Flags = ["--dry-run", "--force", "--judge-different-specs"];

    /// <param name="terminal">stdout is a terminal: progress is one line updated in place, not a line per update.</param>
    public static async Task<int> RunAsync(string[] args, TextWriter stdout, TextWriter stderr, CancellationToken ct, bool terminal = false)
    {
        string command = args.Length > 0 ? args[0] : "";
        // "query" takes the query name first, "compare" the two runs, then options.
        int positional = command switch { "query" => 1, "compare" => 2, _ => 0 };
        bool hasPositional = args.Length > positional && args[1..(positional + 1)].All(a => !a.StartsWith("--", StringComparison.Ordinal));
        var options = ParseOptions(hasPositional ? args[positional..] : args, command switch
        {
            "run" => RunOptions, "runs" => RunsOptions, "serve" => ServeOptions, "cleanup" => CleanupOptions,
            "query" when hasPositional => QueryOptions, "compare" when hasPositional => CompareOptions, "ab" => AbOptionNames,
            "plan" => PlanCommand.Options, _ => null,
        });
        if (options is null)
        {
            await stderr.WriteLineAsync($"error: unknown command or option in '{string.Join(' ', args)}'{Environment.NewLine}{Usage}{Environment.NewLine}{PlanCommand.Usage}").ConfigureAwait(false);
            return 2;
        }
        try
        {
            return command switch
            {
                "run" => await RunCommandAsync(options, stdout, stderr, terminal, ct).ConfigureAwait(false),
                "runs" => await RunsCommandAsync(options, stdout, stderr, ct).ConfigureAwait(false),
                "serve" => await ServeCommandAsync(options, stdout, stderr, ct).ConfigureAwait(false),
                "cleanup" => await CleanupCommandAsync(options, stdout, stderr, ct).ConfigureAwait(false),
                "compare" => await CompareCommandAsync(args[1], args[2], options, stdout, stderr, ct).ConfigureAwait(false),
                "ab" => await AbCommandAsync(options, stdout, stderr, ct).ConfigureAwait(false),
                "plan" => await PlanCommand.RunAsync(options, ResultsTarget(options, out var badResults), badResults, stdout, stderr, ct).ConfigureAwait(false),
                _ => await QueryCommandAsync(args[1], options, stdout, stderr).ConfigureAwait(false),
            };
        }
        catch (Exception ex) when (StorageFailures.Classify(ex, ct) is { } failure)
        {
            // Storage refused or could not be reached outside a run (a run reports its own errors).
            string hint = failure.Status == 403 ? " (check the account key or SAS in the connection string)" : "";
            await stderr.WriteLineAsync($"error: storage: {failure.Text}{hint}").ConfigureAwait(false);
            return 1;
        }
    }

    private static async Task<int> AbCommandAsync(Dictionary<string, string> options, TextWriter stdout, TextWriter stderr, CancellationToken ct)
    {
        AbOptions ab;
        try
        {
            ab = AbOptions.Parse(options);
        }
        catch (FormatException ex)
        {
            await stderr.WriteLineAsync("error: " + ex.Message).ConfigureAwait(false);
            return 2;
        }
        if (await AbCommand.ReadSpecsAsync(ab, stderr, ct).ConfigureAwait(false) is not { } specs || await PricesAsync(options, stderr).ConfigureAwait(false) is not { } prices)
        {
            return 2;
        }
        return await WithTargetsAsync(options, stdout, stderr, targets => AbCommand.RunAsync(ab, specs.Baseline, specs.Candidate, targets, prices, stdout, stderr, ct), ct).ConfigureAwait(false);
    }

    private static async Task<int> QueryCommandAsync(string name, Dictionary<string, string> options, TextWriter stdout, TextWriter stderr)
    {
        if (!LocalQueries.Named.TryGetValue(name, out var query))
        {
            await stderr.WriteLineAsync($"error: query \"{name}\" is not one of {string.Join(", ", LocalQueries.Named.Keys)}").ConfigureAwait(false);
            return 2;
        }
        string results = options.GetValueOrDefault("--results") ?? "out";
        var events = LocalQueries.LoadEvents(results);
        await stdout.WriteLineAsync($"{name} over {events.Count(e => e.Name == TelemetryEmitter.RunEvent)} run(s) in {Path.GetFullPath(results)}:").ConfigureAwait(false);
        await stdout.WriteLineAsync(query(events).ToMarkdown()).ConfigureAwait(false);
        return 0;
    }

    /// <summary>"--name value" pairs and flags; --where may repeat (values joined by newlines). Null on anything unknown.</summary>
    private static Dictionary<string, string>? ParseOptions(string[] args, string[]? allowed)
    {
        if (allowed is null)
        {
            return null;
        }
        var options = new Dictionary<string, string>();
        for (int i = 1; i < args.Length; i++)
        {
            if (!allowed.Contains(args[i]))
            {
                return null;
            }
            if (Flags.Contains(args[i]))
            {
                options[args[i]] = "";
                continue;
            }
            if (i + 1 >= args.Length)
            {
                return null;
            }
            options[args[i]] = options.TryGetValue(args[i], out var earlier) ? earlier + "\n" + args[i + 1] : args[i + 1];
            i++;
        }
        return options;
    }

    /// <summary>Lists, and unless --dry-run deletes, this tool's tables and containers older than --older-than.</summary>
    private static async Task<int> CleanupCommandAsync(Dictionary<string, string> options, TextWriter stdout, TextWriter stderr, CancellationToken ct)
    {
        var targets = GivenTargets(options, out var bad);
        string age = options.GetValueOrDefault("--older-than") ?? $"{RunStarter.LeftoverAgeHours:0}h";
        if (targets.Count == 0)
        {
            await stderr.WriteLineAsync("error: " + (bad ?? "--connection-string: required (cleanup looks in an existing account), or the STORAGEBENCH_TARGET_* settings")).ConfigureAwait(false);
            return 2;
        }
        if (ParseAge(age) is not { } olderThan)
        {
            await stderr.WriteLineAsync($"error: --older-than: \"{age}\" must be a duration like 30m, 6h or 2d (s, m, h or d)").ConfigureAwait(false);
            return 2;
        }
        var now = DateTime.UtcNow;
        var cleaner = new TargetCleaner(targets);
        var leftovers = await cleaner.CreatedBeforeAsync(now - olderThan, ct).ConfigureAwait(false);
        var b = new System.Text.StringBuilder();
        b.AppendLine("| account | kind | name | created (UTC) | age |");
        b.AppendLine("|---:|---|---|---|---:|");
        foreach (var l in leftovers)
        {
            b.AppendLine(System.Globalization.CultureInfo.InvariantCulture, $"| {l.Account} | {l.Kind} | {l.Name} | {l.CreatedUtc:u} | {(now - l.CreatedUtc).TotalHours:0.0} h |");
        }
        await stdout.WriteAsync(b.ToString()).ConfigureAwait(false);
        if (options.ContainsKey("--dry-run"))
        {
            await stdout.WriteLineAsync($"dry run: {leftovers.Count} table(s) and container(s) older than {age} would be deleted; nothing was deleted").ConfigureAwait(false);
            return 0;
        }
        await cleaner.DeleteAsync(leftovers, ct).ConfigureAwait(false);
        await stdout.WriteLineAsync($"deleted {leftovers.Count} table(s) and container(s) older than {age}").ConfigureAwait(false);
        return 0;
    }

    /// <summary>"90s", "30m", "6h", "2d" (a number and a unit); null otherwise.</summary>
    public static TimeSpan? ParseAge(string text)
    {
        var m = System.Text.RegularExpressions.Regex.Match(text.Trim(), @"^([0-9]+(?:\.[0-9]+)?)\s*(s|m|h|d)$");
        if (!m.Success)
        {
            return null;
        }
        double n = double.Parse(m.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture);
        return m.Groups[2].Value switch { "s" => TimeSpan.FromSeconds(n), "m" => TimeSpan.FromMinutes(n), "h" => TimeSpan.FromHours(n), _ => TimeSpan.FromDays(n) };
    }

    private static async Task<int> RunCommandAsync(Dictionary<string, string> options, TextWriter stdout, TextWriter stderr, bool terminal, CancellationToken ct)
    {
        string specJson;
        try
        {
            specJson = options.TryGetValue("--spec", out var file) ? await File.ReadAllTextAsync(file, ct).ConfigureAwait(false) : DefaultSpec();
        }
        catch (IOException ex)
        {
            await stderr.WriteLineAsync($"error: --spec: {ex.Message}").ConfigureAwait(false);
            return 2;
        }
        // Validate before anything starts: a rejected spec creates no table, container or result row.
        var (spec, errors) = RunSpecParser.Parse(specJson);
        if (spec is null)
        {
            await stderr.WriteLineAsync("error: the run spec was rejected; nothing was started:").ConfigureAwait(false);
            foreach (var e in errors)
            {
                await stderr.WriteLineAsync("  " + e).ConfigureAwait(false);
            }
            return 2;
        }
        if (await PricesAsync(options, stderr).ConfigureAwait(false) is not { } prices)
        {
            return 2;
        }
        if (RunOutput.Refusal(options.GetValueOrDefault("--out"), options.ContainsKey("--force")) is { } outRefused)
        {
            await stderr.WriteLineAsync("error: " + outRefused).ConfigureAwait(false);
            return 2;
        }

        return await WithTargetsAsync(options, stdout, stderr, async targets =>
        {
            if (await new StoragePreflight(targets, TargetSettings.Results(Environment.GetEnvironmentVariable, targets[0])).CheckAsync(spec, ct).ConfigureAwait(false) is { } refused)
            {
                await stderr.WriteLineAsync("error: " + refused.Message).ConfigureAwait(false);
                return 1;
            }
            var summary = await RunOnInProcessHostAsync(spec, targets, prices, stdout, terminal, ct).ConfigureAwait(false);
            return await RunOutput.ReportAsync(summary, options.GetValueOrDefault("--out") ?? Path.Combine("out", summary.RunId), stdout, stderr).ConfigureAwait(false);
        }, ct).ConfigureAwait(false);
    }

    private static async Task<int> RunsCommandAsync(Dictionary<string, string> options, TextWriter stdout, TextWriter stderr, CancellationToken ct)
    {
        var results = ResultsTarget(options, out var bad);
        RunFilter filter;
        int max;
        try
        {
            if (results is null)
            {
                throw new FormatException(bad ?? "--connection-string: required (the results table lives in a storage account), or the STORAGEBENCH_TARGET_* settings");
            }
            filter = new RunFilter(
                options.GetValueOrDefault("--scenario"),
                options.TryGetValue("--since", out var since) ? ParseDate("--since", since) : null,
                options.TryGetValue("--until", out var until) ? ParseDate("--until", until) : null,
                options.TryGetValue("--where", out var where) ? [.. where.Split('\n').Select(RunFilter.ParseThreshold)] : null);
            max = options.TryGetValue("--max", out var m) ? int.TryParse(m, out int n) && n > 0 ? n : throw new FormatException($"--max: \"{m}\" must be a positive whole number") : 100;
        }
        catch (FormatException ex)
        {
            await stderr.WriteLineAsync("error: " + ex.Message).ConfigureAwait(false);
            return 2;
        }
        var rows = await new ResultsTableStore(results).QueryRunsAsync(filter, max, ct).ConfigureAwait(false);
        await stdout.WriteLineAsync(RunsTable(rows)).ConfigureAwait(false);
        return 0;
    }

    /// <summary>Where the results table is: --connection-string, else the STORAGEBENCH_* settings; null (with <paramref name="error"/> when they are malformed) otherwise.</summary>
    private static StorageTarget? ResultsTarget(Dictionary<string, string> options, out string? error) =>
        GivenTargets(options, out error) is not [var first, ..] ? null
            : options.ContainsKey("--connection-string") ? first : TargetSettings.Results(Environment.GetEnvironmentVariable, first);

    /// <summary>Compares two runs (ids in the results table, or summary.json files); 1 when --fail-if-slower trips, 2 on a bad argument.</summary>
    private static async Task<int> CompareCommandAsync(string baselineArg, string candidateArg, Dictionary<string, string> options, TextWriter stdout, TextWriter stderr, CancellationToken ct)
    {
        double? failIfSlower = null;
        if (options.TryGetValue("--fail-if-slower", out var percentText))
        {
            if (!double.TryParse(percentText, System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out double percent) || percent is not (> 0 and < 100))
            {
                await stderr.WriteLineAsync($"error: --fail-if-slower: \"{percentText}\" must be a percentage above 0 and below 100, e.g. 10").ConfigureAwait(false);
                return 2;
            }
            failIfSlower = percent;
        }
        using var store = ResultsTarget(options, out var badTarget) is { } target ? new ResultsTableStore(target) : null;
        RunFigures baseline, candidate;
        try
        {
            baseline = await LoadRunAsync("baseline", baselineArg, store, badTarget, ct).ConfigureAwait(false);
            candidate = await LoadRunAsync("candidate", candidateArg, store, badTarget, ct).ConfigureAwait(false);
        }
        catch (FormatException ex)
        {
            await stderr.WriteLineAsync("error: " + ex.Message).ConfigureAwait(false);
            return 2;
        }
        // Earlier runs of the scenario, where the results table has them, give the run-to-run spread (docs/comparing.md, "The rule").
        var history = store is null || baseline.Scenario is null ? null : await store.RunToRunSpreadAsync(baseline.Scenario, [baseline.RunId, candidate.RunId], ct, baseline.Spec).ConfigureAwait(false);
        var comparison = RunComparison.Compare(baseline, candidate, judgeDifferentSpecs: options.ContainsKey("--judge-different-specs"), history: history);
        if (comparison.Workloads.Count == 0)
        {
            await stderr.WriteLineAsync($"error: candidate: \"{candidateArg}\" has no workload or step in common with the baseline, so nothing can be compared " +
                $"(baseline: {string.Join(", ", comparison.OnlyInBaseline)}; candidate: {string.Join(", ", comparison.OnlyInCandidate)})").ConfigureAwait(false);
            return 2;
        }
        if (options.TryGetValue("--out", out var outFile))
        {
            try
            {
                await File.WriteAllTextAsync(outFile, ComparisonReport.Markdown(comparison), ct).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                await stderr.WriteLineAsync($"error: --out: \"{outFile}\" cannot be written: {ex.Message}").ConfigureAwait(false);
                return 2;
            }
        }
        await stdout.WriteLineAsync(ComparisonReport.ConsoleTable(comparison)).ConfigureAwait(false);
        if (outFile is not null)
        {
            await stdout.WriteLineAsync($"Wrote {outFile}").ConfigureAwait(false);
        }
        if (failIfSlower is not { } limit)
        {
            return 0;
        }
        var slower = comparison.SlowerBy(limit);
        foreach (var w in slower)
        {
            await stdout.WriteLineAsync(string.Create(System.Globalization.CultureInfo.InvariantCulture,
                $"--fail-if-slower {limit:0.##}: {w.Label} throughput {w.Throughput.RelativeChange:+0.0%;-0.0%}, lower by more than {limit:0.##}% and beyond noise (±{w.Throughput.Band:0.0%})")).ConfigureAwait(false);
        }
        if (slower.Count == 0)
        {
            await stdout.WriteLineAsync(string.Create(System.Globalization.CultureInfo.InvariantCulture, $"--fail-if-slower {limit:0.##}: no throughput is lower by more than {limit:0.##}% beyond noise")).ConfigureAwait(false);
        }
        return slower.Count > 0 ? 1 : 0;
    }

    /// <summary>A summary.json file (or the directory holding one), else a run id in the results table; a FormatException names the argument, its value and the rule.</summary>
    private static async Task<RunFigures> LoadRunAsync(string role, string argument, ResultsTableStore? store, string? badTarget, CancellationToken ct)
    {
        if (File.Exists(argument) || Directory.Exists(argument))
        {
            try
            {
                return RunFigures.ReadSummaryFile(argument);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or JsonException)
            {
                throw new FormatException($"{role}: \"{argument}\" cannot be read as a summary.json: {ex.Message}");
            }
        }
        if (!Planner.IsValidRunId(argument))
        {
            throw new FormatException($"{role}: \"{argument}\" is neither a summary.json file that exists nor a run id (lowercase letters, digits and dashes)");
        }
        if (store is null)
        {
            throw new FormatException(badTarget ?? $"{role}: \"{argument}\" is a run id, which is read from the results table: give --connection-string or the STORAGEBENCH_TARGET_* settings");
        }
        return await store.LoadRunFiguresAsync(argument, ct).ConfigureAwait(false)
            ?? throw new FormatException($"{role}: \"{argument}\" is no run in the results table ({ResultsTableStore.DefaultRunsTable}) and no summary.json file; give a stored run id or a summary.json path");
    }

    /// <summary>The run rows as a Markdown table: identity, then the headline figures of each workload present.</summary>
    public static string RunsTable(IReadOnlyList<Azure.Data.Tables.TableEntity> rows)
    {
        var b = new System.Text.StringBuilder();
        b.AppendLine("| scenario | run | step | started (UTC) | status | table entities/s | table p99 ms | blob MB/s | blob p99 ms | verified |");
        b.AppendLine("|---|---|---:|---|---|---:|---:|---:|---:|---|");
        foreach (var r in rows)
        {
            string Num(string column, string format) => r.TryGetValue(column, out var v) && v is double d ? d.ToString(format, System.Globalization.CultureInfo.InvariantCulture) : "";
            string verified = string.Join(" ", new[] { "TableVerified", "BlobVerified" }.Where(r.ContainsKey).Select(c => r.GetBoolean(c) == true ? "yes" : "NO"));
            b.AppendLine(System.Globalization.CultureInfo.InvariantCulture,
                $"| {r.PartitionKey} | {r.GetString("RunId")} | {Num("StepValue", "0.##")} | {r.GetDateTimeOffset("StartedUtc")?.UtcDateTime:u} | {r.GetString("Status")} | {Num("TableEntitiesPerSecond", "0.0")} | {Num("TableLatencyP99Ms", "0.0")} | {Num("BlobMegabytesPerSecond", "0.00")} | {Num("BlobLatencyP99Ms", "0.0")} | {verified} |");
        }
        b.Append(System.Globalization.CultureInfo.InvariantCulture, $"{rows.Count} run row(s)");
        return b.ToString();
    }

    private static DateTime ParseDate(string option, string text) =>
        DateTime.TryParse(text, System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.AdjustToUniversal | System.Globalization.DateTimeStyles.AssumeUniversal, out var d)
            ? d
            : throw new FormatException($"{option}: \"{text}\" is not a date (use 2026-11-22 or 2026-11-22T02:00:00Z)");

    /// <summary>The targets named by the STORAGEBENCH_TARGET_* settings; empty (with <paramref name="error"/> when they are malformed) otherwise.</summary>
    /// <summary>The targets --connection-string or the STORAGEBENCH_* settings name, checked (results setting too); empty with an error when one is bad.</summary>
    private static IReadOnlyList<StorageTarget> GivenTargets(Dictionary<string, string> options, out string? error)
    {
        error = null;
        try
        {
            IReadOnlyList<StorageTarget> targets = options.TryGetValue("--connection-string", out var cs)
                ? [StorageTarget.Parse("--connection-string", cs)]
                : TargetSettings.Targets(Environment.GetEnvironmentVariable);
            if (targets.Count > 0)
            {
                _ = TargetSettings.Results(Environment.GetEnvironmentVariable, targets[0]);
            }
            return targets;
        }
        catch (ArgumentException ex)
        {
            error = ex.Message;
            return [];
        }
    }

    public static int ExitCode(RunSummary summary) =>
        summary.Status == RunStatus.Completed && summary.Workloads.All(w => w.Verified.Matched) ? 0 : summary.Status == RunStatus.Invalid ? 2 : 1;

    private static async Task<int> ServeCommandAsync(Dictionary<string, string> options, TextWriter stdout, TextWriter stderr, CancellationToken ct)
    {
        if (!int.TryParse(options.GetValueOrDefault("--port", "7071"), out int port) || port is < 0 or > 65535)
        {
            await stderr.WriteLineAsync($"error: --port: \"{options["--port"]}\" must be a port number from 0 to 65535").ConfigureAwait(false);
            return 2;
        }
        if (await PricesAsync(options, stderr).ConfigureAwait(false) is not { } prices)
        {
            return 2;
        }
        return await WithTargetsAsync(options, stdout, stderr, async targets =>
        {
            using var telemetry = Telemetry();
            using var results = ResultsStore(targets);
            var host = CreateHost(targets, results, telemetry, ct);
            await using var server = await LocalApiServer.StartAsync(
                new RunsApi(host, results, new TargetCleaner(targets), TimeProvider.System, "local-api", prices), port, ct).ConfigureAwait(false);
            await stdout.WriteLineAsync($"""
                Runs API on {server.Address} (loopback only; Ctrl+C stops it and Azurite):
                  curl -X POST {server.Address}api/runs -H "Content-Type: application/json" --data-binary @specs/quick.json
                  curl {server.Address}api/runs/<id>
                  curl -X POST {server.Address}api/runs/<id>/cancel
                  curl "{server.Address}api/runs?scenario=quick&last=5"
                """).ConfigureAwait(false);
            await server.WaitForShutdownAsync(ct).ConfigureAwait(false);
            return 0;
        }, ct).ConfigureAwait(false);
    }

    /// <summary>
    /// The price table of the cost estimate (--prices, else STORAGEBENCH_PRICES_FILE, else the built-in one); null after
    /// saying why it was rejected, before anything started.
    /// </summary>
    private static async Task<PriceTable?> PricesAsync(Dictionary<string, string> options, TextWriter stderr)
    {
        var (prices, errors) = PriceTableReader.Resolve(options.GetValueOrDefault("--prices"), Environment.GetEnvironmentVariable);
        if (prices is null)
        {
            string from = options.TryGetValue("--prices", out var path) ? $"{path} (--prices)"
                : $"{Environment.GetEnvironmentVariable(PriceTableReader.Setting)} ({PriceTableReader.Setting})";
            await stderr.WriteLineAsync($"error: the price table {from} was rejected; nothing was started:").ConfigureAwait(false);
            foreach (var e in errors)
            {
                await stderr.WriteLineAsync("  " + e).ConfigureAwait(false);
            }
        }
        return prices;
    }

    /// <summary>Runs <paramref name="body"/> against the resolved targets; a bad setting is exit 2; an Azurite started here is always stopped.</summary>
    private static async Task<int> WithTargetsAsync(Dictionary<string, string> options, TextWriter stdout, TextWriter stderr,
        Func<IReadOnlyList<StorageTarget>, Task<int>> body, CancellationToken ct)
    {
        var (targets, azurite, error) = await ResolveTargetsAsync(options, stdout, ct).ConfigureAwait(false);
        if (targets.Count == 0)
        {
            await stderr.WriteLineAsync("error: " + error).ConfigureAwait(false);
            return 2;
        }
        await using (azurite)
        {
            return await body(targets).ConfigureAwait(false);
        }
    }

    /// <summary>The targets: --connection-string, else the STORAGEBENCH_TARGET_* settings, else a fresh Azurite (returned for disposal).</summary>
    private static async Task<(IReadOnlyList<StorageTarget> Targets, AzuriteServer? Azurite, string? Error)> ResolveTargetsAsync(Dictionary<string, string> options, TextWriter stdout, CancellationToken ct)
    {
        var fromSettings = GivenTargets(options, out var bad);
        if (fromSettings.Count > 0 || bad is not null)
        {
            return (fromSettings, null, bad);
        }
        await stdout.WriteLineAsync("Starting Azurite on loopback (in-memory)...").ConfigureAwait(false);
        var azurite = await AzuriteServer.StartAsync(ct).ConfigureAwait(false);
        InterruptNotice.AzuriteStarted();
        await stdout.WriteLineAsync($"Azurite: blob 127.0.0.1:{azurite.BlobPort}, table 127.0.0.1:{azurite.TablePort}").ConfigureAwait(false);
        return ([StorageTarget.FromConnectionString(azurite.ConnectionString)], azurite, null);
    }

    /// <summary>Telemetry only when a connection is configured: a local run must not need Azure.</summary>
    private static TelemetryEmitter? Telemetry() =>
        Environment.GetEnvironmentVariable("APPLICATIONINSIGHTS_CONNECTION_STRING") is { Length: > 0 } ai ? new TelemetryEmitter(ai) : null;

    private static ResultsTableStore ResultsStore(IReadOnlyList<StorageTarget> targets) =>
        new(TargetSettings.Results(Environment.GetEnvironmentVariable, targets[0]));

    private static InProcessOrchestrationHost CreateHost(IReadOnlyList<StorageTarget> targets, ResultsTableStore results, TelemetryEmitter? telemetry, CancellationToken ct) =>
        BenchmarkHost.Create(targets, results, TimeProvider.System, shutdown: ct, telemetry: telemetry);

    private static async Task<RunSummary> RunOnInProcessHostAsync(RunSpec spec, IReadOnlyList<StorageTarget> targets, PriceTable prices, TextWriter stdout, bool terminal, CancellationToken ct)
    {
        using var telemetry = Telemetry();
        using var results = ResultsStore(targets);
        var host = CreateHost(targets, results, telemetry, ct);
        var started = await new RunStarter(host, TimeProvider.System).StartAsync(spec, "local-cli", null, ct).ConfigureAwait(false);
        string runId = started.RunId!;
        InterruptNotice.RunStarted(runId);
        await stdout.WriteLineAsync($"Run {runId} started (scenario {spec.Scenario}).").ConfigureAwait(false);

        // Not canceled by Ctrl+C: the host cancels the slices, then the orchestration deletes what the
        // run created and stores the result; wait for that so nothing is left behind.
        var completion = host.WaitForCompletionAsync(runId, CancellationToken.None);
        var display = new ProgressDisplay(stdout, terminal);
        while (!completion.IsCompleted)
        {
            var now = DateTime.UtcNow;
            if (await RunProgressReader.CurrentAsync(host, results, runId, now, CancellationToken.None).ConfigureAwait(false) is { } p)
            {
                await display.ShowAsync(p, now).ConfigureAwait(false);
            }
            await Task.WhenAny(completion, Task.Delay(1000, CancellationToken.None)).ConfigureAwait(false);
        }
        await display.EndAsync().ConfigureAwait(false);
        var final = await completion.ConfigureAwait(false);
        return await RunResults.LoadAsync(host, results, runId, CancellationToken.None, prices).ConfigureAwait(false)
            ?? throw new InvalidOperationException($"orchestration {runId} ended {final.RuntimeStatus}: {final.FailureMessage}");
    }

    private static string DefaultSpec()
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream("quick.json")!;
        return new StreamReader(stream).ReadToEnd();
    }
}
