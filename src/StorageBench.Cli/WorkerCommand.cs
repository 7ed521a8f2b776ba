using System.CommandLine;
using System.Globalization;

namespace StorageBench.Cli;

/// <summary>
/// `storagebench worker`: one more worker process on a task hub, as a Function App instance is one in Azure. It runs
/// whatever orchestrations and activities the hub's queues hold — runs started by `run --external-workers`, by `serve`, by
/// another `run` — until Ctrl+C or SIGTERM. Several workers share a run's slices; a worker that stops hands its running
/// slices' messages back to the hub (a killed one leaves them to reappear after the queue's visibility timeout, 30 s), and
/// they run again on another worker: a worker stopping is not a cancel of the run.
/// </summary>
public static class WorkerCommand
{
    public static Command Create(CliContext cli)
    {
        var connectionString = CliTargets.ConnectionStringOption("the account the slices write to (default: the STORAGEBENCH_TARGET_* settings); required");
        var taskHub = CliTargets.TaskHubOption("Durable task hub to serve, in the control plane's store (default: the account's shared hub, where `run --external-workers` and serve start its runs)");
        var hubConnectionString = CliTargets.HubConnectionStringOption();
        var maxActivities = new Option<int?>("--max-activities")
        {
            Description = "activities (slices included) this worker runs at once, as host.json's maxConcurrentActivityFunctions per instance (default 264: every slice of a step)",
            HelpName = "N",
            CustomParser = r => UsageErrors.ParseEach(r, t => int.TryParse(t, NumberStyles.None, CultureInfo.InvariantCulture, out int n) && n is >= 1 and <= 1024
                ? n : throw new FormatException($"--max-activities: \"{t}\" must be a whole number from 1 to 1024")) is [var n] ? n : null,
        };
        var command = new Command("worker", "Run the orchestrations and activities of a task hub until Ctrl+C: one more instance for runs started with " +
            "`run --external-workers` (or by serve or another run) on the same account and hub. Exit 0 when stopped, 2 bad arguments.")
        {
            connectionString, taskHub, hubConnectionString, maxActivities,
        };
        command.SetAction((r, ct) => RunAsync(r.GetValue(connectionString), r.GetValue(taskHub), r.GetValue(maxActivities), cli.Stdout, cli.Stderr, ct, r.GetValue(hubConnectionString)));
        return command;
    }

    public static async Task<int> RunAsync(string? connectionString, string? taskHub, int? maxActivities, TextWriter stdout, TextWriter stderr, CancellationToken ct,
        string? hubConnectionString = null)
    {
        if (CliTargets.GivenTargets(connectionString, out var bad) is not { Count: > 0 })
        {
            await stderr.WriteLineAsync("error: " + (bad ?? "worker: needs the account the run writes to: pass --connection-string-file FILE (or set STORAGEBENCH_TARGET_*)"))
                .ConfigureAwait(false);
            return CliApp.UsageError;
        }
        return await CliTargets.WithTargetsAsync(connectionString, hubConnectionString, stdout, stderr, async (targets, plane) =>
        {
            InterruptNotice.WorkerStarted();
            using var telemetry = CliTargets.Telemetry();
            using var results = CliTargets.ResultsStore(plane);
            await ServeHubAsync(targets, plane, results, taskHub ?? TaskHub.TaskHubSettings.SharedHubFor(targets), maxActivities, telemetry, stdout, ct).ConfigureAwait(false);
            return 0;
        }, ct).ConfigureAwait(false);
    }

    private static async Task ServeHubAsync(IReadOnlyList<Engine.Targets.StorageTarget> targets, ControlPlane plane, Engine.ResultsStore.ResultsTableStore results, string taskHub,
        int? maxActivities, Engine.Telemetry.TelemetryEmitter? telemetry, TextWriter stdout, CancellationToken ct)
    {
        await using (var hub = await CliTargets.StartHubAsync(targets, plane, results, taskHub, telemetry, null, ct, maxActivities: maxActivities).ConfigureAwait(false))
        {
            await stdout.WriteLineAsync($"Worker {hub.Settings.WorkerId} on task hub {taskHub} in {plane.Where}, up to {hub.Settings.MaxConcurrentActivities} " +
                "activities at once; Ctrl+C or SIGTERM stops it.").ConfigureAwait(false);
            try
            {
                await Task.Delay(Timeout.Infinite, ct).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (ct.IsCancellationRequested)
            {
                await stdout.WriteLineAsync("Stopping: slices still running here are handed back to the hub and run again on another worker.")
                    .ConfigureAwait(false);
            }
        }
    }
}
