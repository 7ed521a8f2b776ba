using Microsoft.Extensions.Logging;
using StorageBench.Engine.StorageCalls;

namespace StorageBench.Orchestration.Activities;

/// <summary>
/// Seeding watches the run's cancel signal as a slice does (about once a second, in the results store), so a cancel
/// stops a long seeding within seconds instead of after it: a canceled seed throws <see cref="OperationCanceledException"/>
/// naming what stopped, which the step takes for the run's cancel, and its cleanup then deletes what was seeded unread.
/// </summary>
internal static class SeedCancelWatch
{
    public static readonly TimeSpan Interval = TimeSpan.FromSeconds(1);

    public static async Task<T> RunAsync<T>(string what, string runId, ResultsTableStore results, StorageCallPolicy policy, TimeProvider time, ILogger logger,
        Func<CancellationToken, Task<T>> seed, CancellationToken ct)
    {
        using var canceled = CancellationTokenSource.CreateLinkedTokenSource(ct);
        using var done = new CancellationTokenSource();
        var watch = WatchAsync(runId, results, policy, time, logger, canceled, done.Token);
        try
        {
            return await seed(canceled.Token).ConfigureAwait(false);
        }
        catch (Exception ex) when (canceled.IsCancellationRequested && !ct.IsCancellationRequested && ex is OperationCanceledException or StorageCallFailedException)
        {
            throw new OperationCanceledException($"{what} stopped: the run was canceled", ex);
        }
        finally
        {
            await done.CancelAsync().ConfigureAwait(false);
            await watch.ConfigureAwait(false);
        }
    }

    private static async Task WatchAsync(string runId, ResultsTableStore results, StorageCallPolicy policy, TimeProvider time, ILogger logger,
        CancellationTokenSource canceled, CancellationToken done)
    {
        try
        {
            while (!done.IsCancellationRequested)
            {
                await Task.Delay(Interval, time, done).ConfigureAwait(false);
                var (signaled, _) = await StorageCall.TryAsync("cancel poll", policy.Quick, t => results.IsCancelRequestedAsync(runId, t), done, logger).ConfigureAwait(false);
                if (signaled)
                {
                    await canceled.CancelAsync().ConfigureAwait(false);
                    return;
                }
            }
        }
        catch (OperationCanceledException) when (done.IsCancellationRequested)
        {
            // the seed ended first
        }
    }
}
