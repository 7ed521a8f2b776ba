using Microsoft.Extensions.Logging;
using StorageBench.Engine.Cost;
using System.Diagnostics;
using StorageBench.Engine.StorageCalls;

namespace StorageBench.Cli;

/// <summary>
/// Watches one run on the task hub to its end, as `run`, `run --resume` and `ab` do. Ctrl+C does what Durable allows:
/// terminate never stops a running activity, so Ctrl+C writes the run's cancel signal, which its slices watch; the run
/// then verifies, deletes what it wrote and stores itself as Canceled, and this keeps watching until it has.
/// </summary>
internal static class LocalRun
{
    /// <summary>
    /// How often the run's state is read: the CLI polls itself rather than wait on the client's slow completion poll. A
    /// quarter second: at 1 s a short run's end waited half a second on average for the next read; one point read of the
    /// Instances table in the hub store per poll. The end of a run this process works is read as it lands (<see cref="StateReads"/>).
    /// </summary>
    private static readonly TimeSpan Poll = TimeSpan.FromMilliseconds(250);

    /// <summary>How long the task hub may not answer before the wait gives up: the run's state is there, and nothing can go on without it.</summary>
    public static readonly TimeSpan Unreachable = TimeSpan.FromSeconds(30);

    /// <param name="interrupt">Ctrl+C: canceled once, the run is asked to stop; the wait goes on until it has.</param>
    /// <param name="display">Shown the run's progress about once a second (null: nothing shown); the slices' live figures are read only when it will show them.</param>
    public static async Task<RunSummary> WaitAsync(IRunOrchestrationClient hub, ResultsTableStore results, string runId, PriceTable prices, ILogger log,
        CancellationToken interrupt, ProgressDisplay? display = null)
    {
        using var cancelOnInterrupt = interrupt.Register(() => _ = RequestCancelAsync(results, runId, log));
        OrchestrationState? state = null;
        var answered = Stopwatch.StartNew();
        var reads = new StateReads(hub.EndingAsync(runId));
        // Ends at the read that finds the run done: a read before the test waited a whole poll after the run had ended.
        while (true)
        {
            try
            {
                state = await hub.GetStateAsync(runId, CancellationToken.None).ConfigureAwait(false);
                answered.Restart();
                var now = DateTime.UtcNow;
                if (display is not null && state is not null
                    && await RunProgressReader.CurrentAsync(hub, display.ShowsFiguresAt(now) ? results : null, state, now, CancellationToken.None, log).ConfigureAwait(false) is { } p)
                {
                    await display.ShowAsync(p, now).ConfigureAwait(false);
                }
                if (state is not null && RuntimeStatus.IsDone(state.RuntimeStatus))
                {
                    break;
                }
            }
            catch (Exception ex) when (StorageFailures.Classify(ex, CancellationToken.None) is { } failure)
            {
                if (answered.Elapsed >= Unreachable)
                {
                    throw new TaskHubUnreachableException(runId, failure.Text, ex);
                }
            }
            await reads.NextAsync(Poll, CancellationToken.None).ConfigureAwait(false);
        }
        return await RunResults.LoadAsync(hub, results, runId, CancellationToken.None, prices).ConfigureAwait(false)
            ?? throw new InvalidOperationException($"orchestration {runId} ended {state.RuntimeStatus}: {state.FailureMessage}");
    }

    /// <summary>
    /// What `run` reports when the task hub stopped answering: the run's state, and the figures its slices would hand back, are
    /// in that storage, so the run is Failed here; nothing more is known. Its slices stop by themselves once storage is gone.
    /// </summary>
    public static RunSummary Lost(RunSpec spec, string runId, DateTime startedUtc, string host, TaskHubUnreachableException ex) => new()
    {
        RunId = runId, Status = RunStatus.Failed, StartedUtc = startedUtc, EndedUtc = DateTime.UtcNow, Spec = spec,
        Environment = new RunEnvironment("", 0, host, Environment.MachineName, System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription, Environment.ProcessorCount),
        Errors = [ex.Message],
    };

    private static async Task RequestCancelAsync(ResultsTableStore results, string runId, ILogger log)
    {
        try
        {
            await results.RequestCancelAsync(runId, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception ex)
        {
            log.CancelSignalFailed(ex, runId);
        }
    }
}

/// <summary>The task hub (the run's state) did not answer for <see cref="LocalRun.Unreachable"/>.</summary>
public sealed class TaskHubUnreachableException(string runId, string failure, Exception inner) : Exception(
    $"the task hub's storage stopped answering ({failure}) for {LocalRun.Unreachable.TotalSeconds:0} s: run {runId} was not finished, verified or stored; " +
    $"its state is in the task hub, and `storagebench run --resume {runId}` finishes it once that storage answers again", inner)
{
    public string RunId { get; } = runId;
}
