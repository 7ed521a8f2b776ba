using System.Text.Json;
using Microsoft.Extensions.Logging;
using StorageBench.Engine;

namespace StorageBench.Cli;

public static partial class RunCommand
{
    /// <summary>
    /// `run --resume RUN_ID`: a run whose process stopped is still in its task hub, with the messages of the work it had not
    /// finished. This process joins the hub as a worker: DurableTask.Core replays the orchestrations from their history, and
    /// the slices the dead process was running come back once their messages' visibility timeout (30 s) lapses and run again
    /// from their start (each says so in the step's errors; only the accepted executions' writes are counted, the others'
    /// deleted). Then its reports are written as `run` writes them; exit codes as `run`'s.
    /// </summary>
    /// <summary>
    /// <c>--resume</c> with no target given (no option, no setting): the file the run's target was read from when it was started,
    /// if it was one. Only its path was kept, so the key is given once, in its file.
    /// </summary>
    private static async Task<RunOptions> WithRememberedTargetAsync(RunOptions options, TextWriter stdout)
    {
        if (options.Resume is not { } runId || options.ConnectionString is not null || CliTargets.GivenTargets(null, out _).Count > 0
            || RunTargetFiles.Recall(runId) is not { } file)
        {
            return options;
        }
        await Human(options, stdout).WriteLineAsync($"Target: the connection string in {file}, as run {runId} was started.").ConfigureAwait(false);
        return options with { ConnectionString = (await File.ReadAllTextAsync(file).ConfigureAwait(false)).Trim(), ConnectionStringFile = file };
    }

    private static async Task<int> ResumeAsync(string runId, RunOptions options, TextWriter stdout, TextWriter stderr, bool terminal, CancellationToken ct)
    {
        if (await OutputsAsync(options, stderr).ConfigureAwait(false) is not { } prices)
        {
            return CliApp.UsageError;
        }
        var human = Human(options, stdout);
        using ILoggerFactory loggers = Loggers(options, stderr);
        return await CliTargets.WithTargetsAsync(options.ConnectionString, options.HubConnectionString, human, stderr, async (targets, plane) =>
        {
            // The run's own hub, unless --task-hub names one; a run started with --external-workers (or by serve) is on its account's shared hub.
            string hubName = options.TaskHub
                ?? (await LocalTaskHub.ExistsAsync(plane.Store, TaskHubSettings.ForRun(runId), ct).ConfigureAwait(false) ? TaskHubSettings.ForRun(runId) : TaskHubSettings.SharedHubFor(targets));
            using var telemetry = CliTargets.Telemetry();
            using var results = CliTargets.ResultsStore(plane);
            bool ownHub = hubName == TaskHubSettings.ForRun(runId);
            await using var hub = await CliTargets.StartHubAsync(targets, plane, results, hubName, telemetry, loggers, ct, oneRun: ownHub).ConfigureAwait(false);
            var state = await hub.GetStateAsync(runId, ct).ConfigureAwait(false);
            if (state is not { Name: BenchmarkOrchestrator.Name, InputJson: { } input } || JsonSerializer.Deserialize<RunRequest>(input, JsonDefaults.Options) is not { } request)
            {
                await stderr.WriteLineAsync($"error: --resume: \"{runId}\" is no run in task hub {hubName} of {plane.Where} (check --task-hub and --hub-connection-string; " +
                    "a run that ended has its reports in out/); nothing was started").ConfigureAwait(false);
                return CliApp.UsageError;
            }
            await human.WriteLineAsync(RuntimeStatus.IsDone(state.RuntimeStatus)
                ? $"Run {runId} (scenario {request.Spec.Scenario}) had already ended ({state.RuntimeStatus}); writing its reports."
                : $"Resuming run {runId} (scenario {request.Spec.Scenario}, task hub {hubName}, started {state.CreatedUtc:u}): this process is now one of its " +
                  "workers; slices whose process stopped run again once their messages come back (within 30 s).").ConfigureAwait(false);
            var summary = await WatchAsync(hub, results, runId, request.Spec, state.CreatedUtc, targets, prices, human, terminal, loggers, ct,
                ownHub).ConfigureAwait(false);
            return await ReportOutput.ReportAsync(summary, options.Out ?? Path.Combine("out", summary.RunId), options.Output, stdout, stderr).ConfigureAwait(false);
        }, ct).ConfigureAwait(false);
    }
}
