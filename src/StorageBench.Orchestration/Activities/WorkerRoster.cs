using Microsoft.Extensions.Logging;
using StorageBench.Engine.StorageCalls;

namespace StorageBench.Orchestration;

/// <summary>
/// A worker process's entry on its task hub's roster in the control plane: written when it starts, refreshed every
/// <see cref="Beat"/>, removed when it stops. A step lists the workers seen within <see cref="Fresh"/> (a killed one drops
/// off by then) to share its slices evenly among them when the spec gives no placement.
/// </summary>
public sealed class WorkerRoster(ResultsTableStore results, string hub, string worker, int? activityLimit, int? hubPartitions, TimeProvider time, ILogger logger) : IAsyncDisposable
{
    public static readonly TimeSpan Beat = TimeSpan.FromSeconds(5), Fresh = TimeSpan.FromSeconds(20);

    private readonly CancellationTokenSource _stop = new();
    private Task? _beating;

    /// <summary>Registers this worker (before its hub takes work, so a step planned right after counts it) and keeps its heartbeat.</summary>
    public async Task StartAsync(CancellationToken ct)
    {
        await SaveAsync(ct).ConfigureAwait(false);
        _beating = BeatAsync(_stop.Token);
    }

    public async Task<IReadOnlyList<WorkerSeen>> ListAsync(CancellationToken ct) =>
        [.. (await results.WorkersAsync(hub, time.GetUtcNow().UtcDateTime - Fresh, ct).ConfigureAwait(false)).Select(w => new WorkerSeen(w.Worker, w.ActivityLimit, w.HubPartitions))];

    private Task SaveAsync(CancellationToken ct) =>
        StorageCall.TryAsync("worker heartbeat", results.Policy.Quick, async t =>
        {
            await results.SaveWorkerAsync(hub, worker, activityLimit, hubPartitions, time.GetUtcNow().UtcDateTime, t).ConfigureAwait(false);
            return true;
        }, ct, logger);

    private async Task BeatAsync(CancellationToken ct)
    {
        while (!ct.IsCancellationRequested)
        {
            try
            {
                await Task.Delay(Beat, time, ct).ConfigureAwait(false);
                await SaveAsync(ct).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (ct.IsCancellationRequested)
            {
                return;
            }
            catch (ObjectDisposedException)
            {
                return; // the results store went first (its owner's order): the row goes stale, as a killed worker's does
            }
        }
    }

    /// <summary>Stops the heartbeat and takes the worker off the roster; a control plane that does not answer leaves the row to go stale.</summary>
    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        if (_beating is not null)
        {
            await _beating.ConfigureAwait(false);
        }
        try
        {
            await StorageCall.TryAsync("worker leaving the roster", results.Policy.Quick, async t =>
            {
                await results.RemoveWorkerAsync(hub, worker, t).ConfigureAwait(false);
                return true;
            }, CancellationToken.None, logger).ConfigureAwait(false);
        }
        catch (ObjectDisposedException)
        {
            // The results store was disposed before this hub: leaving the roster is best effort, the row goes stale in Fresh.
        }
        _stop.Dispose();
    }
}
