using System.CommandLine;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Preflight;

namespace StorageBench.Cli;

/// <summary>What a run prints: the default (the figures a person reads), everything, the final line only, or summary.json.</summary>
public enum RunOutput { Default, Verbose, Quiet, Json }

/// <summary>`storagebench run`'s options, as parsed.</summary>
/// <param name="Resume">A run to resume: its task hub is hosted here until the run ends, then its reports are written (run --resume).</param>
/// <param name="ExternalWorkers">Start the run and wait; `storagebench worker` processes on the hub execute it (run --external-workers).</param>
/// <param name="Nightly">The nightly regression check (run --nightly): leftovers older than 25 h deleted first, then the verdict against the scenario's trailing runs, stored on the run row.</param>
/// <param name="TaskHub">The task hub (null: a hub of the run's own, or with --external-workers the shared default one).</param>
/// <param name="HubConnectionString">The control plane's account (null: the STORAGEBENCH_HUB_CONNECTION_STRING setting, else the hub store's Azurite).</param>
public sealed record RunOptions(string? Spec, string? Out, string? ConnectionString, string? Prices, RunOutput Output = RunOutput.Default, bool Force = false,
    bool Nightly = false, string? TaskHub = null, string? Resume = null, bool ExternalWorkers = false, string? HubConnectionString = null,
    string? ConnectionStringFile = null)
{
    /// <summary>
    /// The hub a run goes through: --task-hub, else with --external-workers its accounts' shared hub (the workers must find
    /// it before the run exists), else the run's own (<see cref="TaskHubSettings.ForRun"/>), deleted when the run has ended.
    /// </summary>
    public string HubFor(string runId, IReadOnlyList<StorageTarget> targets) =>
        TaskHub ?? (ExternalWorkers ? TaskHubSettings.SharedHubFor(targets) : TaskHubSettings.ForRun(runId));
}

/// <summary>`storagebench run`: validate the spec, start Azurite (unless given a target), run on the task hub (this process its worker), report.</summary>
public static partial class RunCommand
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
        var nightly = new Option<bool>("--nightly")
        {
            Description = "the nightly regression check, for a cron job or CI against any account: delete leftovers older than 25 h, run, judge the run " +
                "against the scenario's trailing runs in the results table and store the verdict on its row; exit 1 regressed, 3 could not judge (too few earlier runs, too short a run)",
        };
        var taskHub = CliTargets.TaskHubOption("Durable task hub the run goes through, in the control plane's store (default: a hub of the run's own, " +
            "deleted when it has ended; with --external-workers the account's shared hub, where its `storagebench worker`s serve)");
        var hubConnectionString = CliTargets.HubConnectionStringOption();
        var resume = new Option<string?>("--resume")
        {
            Description = "finish a run whose process stopped (killed, crashed): host a worker on its task hub (in the control plane's store; its target by " +
                "--connection-string) until it ends, then write its reports as run does",
            HelpName = "RUN_ID",
        };
        var externalWorkers = new Option<bool>("--external-workers")
        {
            Description = "start the run on the task hub and wait, executing nothing here: `storagebench worker` processes on the same hub run its orchestrations and slices",
        };
        var command = new Command("run", "Run a benchmark and write summary.json, summary.md and summary.html. " +
            "Exit 0 completed and verified, 1 run failed or unverified (--nightly: or regressed), 2 bad arguments or spec, 3 --nightly could not judge. " +
            "With APPLICATIONINSIGHTS_CONNECTION_STRING set, the run is also sent to Application Insights.")
        {
            spec, outDir, force, connectionString, prices, verbose, quiet, json, nightly, taskHub, hubConnectionString, resume, externalWorkers,
        };
        command.Validators.Add(r =>
        {
            var chosen = new[] { verbose, quiet, json }.Where(o => r.GetValue(o)).Select(o => o.Name).ToList();
            if (chosen.Count > 1)
            {
                r.AddError($"{string.Join(" and ", chosen)}: choose one output");
            }
            if (r.GetValue(resume) is not null && (r.GetValue(spec) is not null || r.GetValue(nightly) || r.GetValue(externalWorkers)))
            {
                r.AddError("--resume: finishes a run as it was started; it takes no --spec, --nightly or --external-workers");
            }
        });
        command.SetAction((r, ct) => RunAsync(
            new RunOptions(r.GetValue(spec), r.GetValue(outDir), r.GetValue(connectionString), r.GetValue(prices),
                r.GetValue(json) ? RunOutput.Json : r.GetValue(quiet) ? RunOutput.Quiet : r.GetValue(verbose) ? RunOutput.Verbose : RunOutput.Default,
                r.GetValue(force), r.GetValue(nightly), r.GetValue(taskHub), r.GetValue(resume), r.GetValue(externalWorkers), r.GetValue(hubConnectionString),
                r.GetValue(((SecretOption)connectionString).File)),
            cli.Stdout, cli.Stderr, cli.Terminal, ct));
        return command;
    }

    public static async Task<int> RunAsync(RunOptions options, TextWriter stdout, TextWriter stderr, bool terminal, CancellationToken ct)
    {
        options = await WithRememberedTargetAsync(options, stdout).ConfigureAwait(false);
        if ((options.Resume is not null || options.ExternalWorkers) && CliTargets.GivenTargets(options.ConnectionString, out _).Count == 0)
        {
            // Other processes write to the target: an in-memory Azurite started here would be a new, empty one that none of them reaches.
            await stderr.WriteLineAsync($"error: {(options.Resume is not null ? "--resume" : "--external-workers")}: needs the account the run writes to: " +
                "pass --connection-string-file FILE (or set STORAGEBENCH_TARGET_*); nothing was started").ConfigureAwait(false);
            return CliApp.UsageError;
        }
        if (options.Resume is { } resumeId)
        {
            return await ResumeAsync(resumeId, options, stdout, stderr, terminal, ct).ConfigureAwait(false);
        }
        await using var early = EarlyHubStore.Begin(options.HubConnectionString, ct);
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
        foreach (string note in RunSpecParser.UnusedCounts(specJson))
        {
            await stderr.WriteLineAsync("note: " + note).ConfigureAwait(false);
        }
        if (await OutputsAsync(options, stderr).ConfigureAwait(false) is not { } prices)
        {
            return CliApp.UsageError;
        }
        var human = Human(options, stdout);
        using ILoggerFactory loggers = Loggers(options, stderr);
        StoragePreflight? targetPreflight = null;
        return await CliTargets.WithTargetsAsync(options.ConnectionString, options.HubConnectionString, human, stderr, async (targets, plane) =>
        {
            early?.Used();
            foreach (var (account, role) in plane.Preflights())
            {
                if (await PreflightAsync(new StoragePreflight([], account, loggers.CreateLogger<StoragePreflight>(), role), spec, stderr, ct).ConfigureAwait(false) is { } refused)
                {
                    return refused;
                }
            }
            var (summary, hubGone) = await RunOnTaskHubAsync(spec, options, targets, plane, prices, human, terminal, loggers, targetPreflight?.TargetRequests ?? 0, ct)
                .ConfigureAwait(false);
            int exit;
            try
            {
                exit = await ReportOutput.ReportAsync(summary, options.Out ?? Path.Combine("out", summary.RunId), options.Output, stdout, stderr).ConfigureAwait(false);
            }
            finally
            {
                await hubGone.ConfigureAwait(false);
            }
            return options.Nightly ? await NightlyCheck.ExitCodeAsync(summary, exit, human, stderr).ConfigureAwait(false) : exit;
        }, ct,
        // One cheap authenticated request per target account before "started", while the hub store starts: a wrong key or an
        // unreachable endpoint is one line and nothing created.
        targets => PreflightAsync(targetPreflight = new StoragePreflight(targets, null, loggers.CreateLogger<StoragePreflight>()), spec, stderr, ct), early?.Opening).ConfigureAwait(false);
    }

    /// <summary>
    /// After one line when the preflight was refused: exit 2 for a workload whose service has no endpoint (bad input), 1 when
    /// an account refused or did not answer; null when every endpoint answered.
    /// </summary>
    private static async Task<int?> PreflightAsync(StoragePreflight preflight, RunSpec spec, TextWriter stderr, CancellationToken ct)
    {
        if (await preflight.CheckAsync(spec, ct).ConfigureAwait(false) is not { } refused)
        {
            return null;
        }
        await stderr.WriteLineAsync("error: " + refused.Message).ConfigureAwait(false);
        return refused.MissingEndpoint is null ? 1 : CliApp.UsageError;
    }

    /// <summary>The price table, and --out checked, before anything starts; null (after one line on stderr) when either is refused.</summary>
    private static async Task<PriceTable?> OutputsAsync(RunOptions options, TextWriter stderr)
    {
        if (await CliTargets.PricesAsync(options.Prices, stderr).ConfigureAwait(false) is not { } prices)
        {
            return null;
        }
        if (ReportOutput.Refusal(options.Out, options.Force) is { } outRefused)
        {
            await stderr.WriteLineAsync("error: " + outRefused).ConfigureAwait(false);
            return null;
        }
        return prices;
    }

    /// <summary>What a person reads; --quiet and --json keep stdout for the one line or the JSON.</summary>
    private static TextWriter Human(RunOptions options, TextWriter stdout) => options.Output is RunOutput.Quiet or RunOutput.Json ? TextWriter.Null : stdout;

    /// <summary>--verbose: the log on stderr (docs/faults.md, "Logs"); otherwise none.</summary>
    private static ILoggerFactory Loggers(RunOptions options, TextWriter stderr) => options.Output == RunOutput.Verbose ? StderrLog.Factory(stderr) : NullLoggerFactory.Instance;

    public static int ExitCode(RunSummary summary) =>
        summary.Status == RunStatus.Completed && summary.Workloads.All(w => w.Verified.Matched) ? 0 : summary.Status == RunStatus.Invalid ? 2 : 1;

    /// <summary>
    /// Starts the run on the task hub with this process as its worker (or, with --external-workers, as a client only) and
    /// watches it to its end. Ctrl+C (<paramref name="ct"/>) asks the run to stop (<see cref="LocalRun"/>); the worker keeps
    /// running until the run has ended as Canceled. Returns with the hub still stopping and being deleted (its worker, queues
    /// and tables): that waits on the hub store while the caller writes the report; the process ends only after it.
    /// </summary>
    private static async Task<(RunSummary Summary, Task HubGone)> RunOnTaskHubAsync(RunSpec spec, RunOptions options, IReadOnlyList<StorageTarget> targets,
        ControlPlane plane, PriceTable prices, TextWriter stdout, bool terminal, ILoggerFactory loggers, long preflightRequests, CancellationToken ct)
    {
        var telemetry = CliTargets.Telemetry();
        var results = CliTargets.ResultsStore(plane);
        LocalTaskHub? hub = null;
        // The hub's worker sends telemetry and keeps its roster entry through these until it has stopped.
        async Task GoneAsync()
        {
            try
            {
                if (hub is not null)
                {
                    await hub.DisposeAsync().ConfigureAwait(false);
                }
            }
            finally
            {
                results.Dispose();
                telemetry?.Dispose();
            }
        }
        try
        {
            var startedUtc = DateTime.UtcNow;
            string runId = Engine.Planning.Planner.NewRunId(startedUtc);
            string hubName = options.HubFor(runId, targets);
            if (options.ConnectionStringFile is { } targetFile)
            {
                RunTargetFiles.Remember(runId, targetFile);
            }
            bool ownHub = hubName == TaskHubSettings.ForRun(runId);
            hub = await CliTargets.StartHubAsync(targets, plane, results, hubName, telemetry, loggers, ct, worker: !options.ExternalWorkers, oneRun: ownHub)
                .ConfigureAwait(false);
            var started = await NightlyCheck.StartAsync(new RunStarter(hub, TimeProvider.System)
            {
                // Only on its own hub is this process the run's one worker: on a shared one another worker may send telemetry.
                PreflightRequests = preflightRequests, Telemetry = telemetry is not null || !ownHub,
            }, spec, options.Nightly, runId, ct).ConfigureAwait(false);
            // Two lines, each within the 120 columns the console output keeps to: the hub store's folder is a long path.
            await stdout.WriteLineAsync($"Run {started.RunId} started (scenario {spec.Scenario}),").ConfigureAwait(false);
            await stdout.WriteLineAsync($"  on task hub {hubName} in {plane.Where}" +
                $"{(options.ExternalWorkers ? ",\n  executed by the hub's `storagebench worker` processes, none here" : "")}.").ConfigureAwait(false);
            var summary = await WatchAsync(hub, results, started.RunId!, spec, startedUtc, targets, prices, stdout, terminal, loggers, ct, ownHub).ConfigureAwait(false);
            return (summary, GoneAsync());
        }
        catch
        {
            await GoneAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>Watches a started (or resumed) run to its end, with progress; a hub that stops answering gives a Failed summary that says so.</summary>
    /// <param name="ownHub">The hub is the run's own: once the run has ended (not when its storage was lost) it is deleted.</param>
    private static async Task<RunSummary> WatchAsync(LocalTaskHub hub, Engine.ResultsStore.ResultsTableStore results, string runId, RunSpec spec, DateTime startedUtc,
        IReadOnlyList<StorageTarget> targets, PriceTable prices, TextWriter stdout, bool terminal, ILoggerFactory loggers, CancellationToken ct, bool ownHub)
    {
        var log = loggers.CreateLogger(typeof(RunCommand).FullName!);
        InterruptNotice.RunStarted(runId);
        log.RunStarted(runId, spec.Scenario, targets[0].Kind, targets.Count);
        var display = new ProgressDisplay(stdout, terminal);
        RunSummary summary;
        try
        {
            summary = await LocalRun.WaitAsync(hub, results, runId, prices, log, ct, display).ConfigureAwait(false);
            RunTargetFiles.Forget(runId);
            if (ownHub)
            {
                hub.DeleteWhenDisposed();
            }
        }
        catch (TaskHubUnreachableException lost)
        {
            summary = LocalRun.Lost(spec, runId, startedUtc, "local-cli", lost);
        }
        await display.EndAsync().ConfigureAwait(false);
        log.RunEnded(runId, summary.Status, summary.Errors.Count);
        return summary;
    }
}
