using System.CommandLine;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Preflight;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;

namespace StorageBench.Cli;

/// <summary>What a run prints: the default (the figures a person reads), everything, the final line only, or summary.json.</summary>
public enum RunOutput { Default, Verbose, Quiet, Json }

/// <summary>`storagebench run`'s options, as parsed.</summary>
public sealed record RunOptions(string? Spec, string? Out, string? ConnectionString, string? Prices, RunOutput Output = RunOutput.Default, bool Force = false);

/// <summary>`storagebench run`: validate the spec, start Azurite (unless given a target), run on the in-process host, report.</summary>
public static class RunCommand
{
    public static Command Create(CliContext cli)
    {
        var spec = new Option<string?>("--spec") { Description = "run spec JSON (default: the built-in quick scenario, specs/quick.json)", HelpName = "FILE" };
        var outDir = new Option<string?>("--out") { Description = "where summary.json, summary.md and summary.html go (default: out/<runId>); a folder that already holds a summary.json is refused unless --force", HelpName = "DIR" };
        var force = new Option<bool>("--force") { Description = "let --out replace the reports of an earlier run in that folder" };
        var connectionString = CliTargets.ConnectionStringOption("storage account to test (default: the STORAGEBENCH_TARGET_* settings if set, else Azurite started on loopback)");
        var prices = CliTargets.PricesOption();
        var verbose = new Option<bool>("--verbose", "-v") { Description = "also print the cost table, price sources and notes (all of summary.md), and the log on stderr (failures the run survived, with their exceptions)" };
        var quiet = new Option<bool>("--quiet", "-q") { Description = "print only the final status line" };
        var json = new Option<bool>("--json") { Description = "write summary.json to stdout (and nothing else), for scripts" };
        var command = new Command("run", "Run a benchmark and write summary.json, summary.md and summary.html. " +
            "Exit 0 completed and verified, 1 run failed or unverified, 2 bad arguments or spec. " +
            "With APPLICATIONINSIGHTS_CONNECTION_STRING set, the run is also sent to Application Insights.")
        {
            spec, outDir, force, connectionString, prices, verbose, quiet, json,
        };
        command.Validators.Add(r =>
        {
            var chosen = new[] { verbose, quiet, json }.Where(o => r.GetValue(o)).Select(o => o.Name).ToList();
            if (chosen.Count > 1)
            {
                r.AddError($"{string.Join(" and ", chosen)}: choose one output");
            }
        });
        command.SetAction((r, ct) => RunAsync(
            new RunOptions(r.GetValue(spec), r.GetValue(outDir), r.GetValue(connectionString), r.GetValue(prices),
                r.GetValue(json) ? RunOutput.Json : r.GetValue(quiet) ? RunOutput.Quiet : r.GetValue(verbose) ? RunOutput.Verbose : RunOutput.Default,
                r.GetValue(force)),
            cli.Stdout, cli.Stderr, cli.Terminal, ct));
        return command;
    }

    public static async Task<int> RunAsync(RunOptions options, TextWriter stdout, TextWriter stderr, bool terminal, CancellationToken ct)
    {
        var (read, readError) = options.Spec is { } file ? await SpecFile.ReadAsync("--spec", file, ct).ConfigureAwait(false) : (CliApp.DefaultSpec(), null);
        if (read is not { } specJson)
        {
            await stderr.WriteLineAsync(readError).ConfigureAwait(false);
            return CliApp.UsageError;
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
            return CliApp.UsageError;
        }
        if (await CliTargets.PricesAsync(options.Prices, stderr).ConfigureAwait(false) is not { } prices)
        {
            return CliApp.UsageError;
        }

        if (ReportOutput.Refusal(options.Out, options.Force) is { } outRefused)
        {
            await stderr.WriteLineAsync("error: " + outRefused).ConfigureAwait(false);
            return CliApp.UsageError;
        }

        // What a person reads; --quiet and --json keep stdout for the one line or the JSON.
        var human = options.Output is RunOutput.Quiet or RunOutput.Json ? TextWriter.Null : stdout;
        // --verbose: the log on stderr (docs/faults.md, "Logs"); otherwise none.
        using ILoggerFactory loggers = options.Output == RunOutput.Verbose ? StderrLog.Factory(stderr) : NullLoggerFactory.Instance;
        return await CliTargets.WithTargetsAsync(options.ConnectionString, human, stderr, async targets =>
        {
            // One cheap authenticated request per account and to the results store before "started": a wrong key or
            // an unreachable endpoint is one line and nothing created.
            if (await new StoragePreflight(targets, TargetSettings.Results(Environment.GetEnvironmentVariable, targets[0]), loggers.CreateLogger<StoragePreflight>())
                .CheckAsync(spec, ct).ConfigureAwait(false) is { } refused)
            {
                await stderr.WriteLineAsync("error: " + refused.Message).ConfigureAwait(false);
                return 1;
            }
            var summary = await RunOnInProcessHostAsync(spec, targets, prices, human, terminal, loggers, ct).ConfigureAwait(false);
            return await ReportOutput.ReportAsync(summary, options.Out ?? Path.Combine("out", summary.RunId), options.Output, stdout, stderr).ConfigureAwait(false);
        }, ct).ConfigureAwait(false);
    }

    public static int ExitCode(RunSummary summary) =>
        summary.Status == RunStatus.Completed && summary.Workloads.All(w => w.Verified.Matched) ? 0 : summary.Status == RunStatus.Invalid ? 2 : 1;

    private static async Task<RunSummary> RunOnInProcessHostAsync(RunSpec spec, IReadOnlyList<StorageTarget> targets, PriceTable prices, TextWriter stdout, bool terminal,
        ILoggerFactory loggers, CancellationToken ct)
    {
        using var telemetry = CliTargets.Telemetry();
        using var results = CliTargets.ResultsStore(targets);
        var host = CliTargets.CreateHost(targets, results, telemetry, ct, loggers);
        var log = loggers.CreateLogger(typeof(RunCommand).FullName!);
        var started = await new RunStarter(host, TimeProvider.System).StartAsync(spec, "local-cli", null, ct).ConfigureAwait(false);
        string runId = started.RunId!;
        InterruptNotice.RunStarted(runId);
        log.RunStarted(runId, spec.Scenario, targets[0].Kind, targets.Count);
        await stdout.WriteLineAsync($"Run {runId} started (scenario {spec.Scenario}).").ConfigureAwait(false);

        // Not canceled by Ctrl+C: the host cancels the slices, then the orchestration deletes what the
        // run created and stores the result; wait for that so nothing is left behind.
        var completion = host.WaitForCompletionAsync(runId, CancellationToken.None);
        var display = new ProgressDisplay(stdout, terminal);
        while (!completion.IsCompleted)
        {
            var now = DateTime.UtcNow;
            if (await RunProgressReader.CurrentAsync(host, results, runId, now, CancellationToken.None, log).ConfigureAwait(false) is { } p)
            {
                await display.ShowAsync(p, now).ConfigureAwait(false);
            }
            await Task.WhenAny(completion, Task.Delay(1000, CancellationToken.None)).ConfigureAwait(false);
        }
        await display.EndAsync().ConfigureAwait(false);
        var final = await completion.ConfigureAwait(false);
        var summary = await RunResults.LoadAsync(host, results, runId, CancellationToken.None, prices).ConfigureAwait(false)
            ?? throw new InvalidOperationException($"orchestration {runId} ended {final.RuntimeStatus}: {final.FailureMessage}");
        log.RunEnded(runId, summary.Status, summary.Errors.Count);
        return summary;
    }
}
