
namespace StorageBench.Engine.Workloads;

/// <summary>
/// A blob upload's requests (Put Block and Put Block List, Put Page and the Put Blob that creates a page blob, Append Block):
/// send, record the outcome, and retry what the service may accept later.
/// </summary>
/// <param name="retrying">Told of every retry: the failure, its outcome and the wait chosen (logged).</param>
internal sealed class RetriedBlobRequests(int retries, BlockRetryDelays delays, Action<Exception, Outcome, ChosenRetryDelay> retrying)
{
    private long _partIndex = -1;

    /// <summary>
    /// Sends a request until it succeeds, fails for good, or the slice stops; records every attempt on <paramref name="lane"/>.
    /// <paramref name="countsAsPart"/>: warmupOperations counts the measured data requests (Put Block, Put Page, Append Block); a
    /// commit or a create is warm-up only by time.
    /// </summary>
    public async Task<bool> SendAsync(Lane lane, long units, Func<Task> request, CancellationToken stopping, bool countsAsPart = true)
    {
        for (int attempt = 0; ; attempt++)
        {
            var sent = await Lane.SendAsync(request).ConfigureAwait(false);
            lane.Record(sent, units, countsAsPart ? Interlocked.Increment(ref _partIndex) : long.MaxValue);
            if (sent.Succeeded)
            {
                return true;
            }
            if (attempt >= retries || !IsTransient(sent.Outcome) || stopping.IsCancellationRequested)
            {
                return false;
            }
            var wait = delays.Next(attempt + 1, sent.Failure);
            retrying(sent.Failure!, sent.Outcome, wait);
            try
            {
                await Task.Delay(wait.Wait, stopping).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                return false;
            }
        }
    }

    /// <summary>Worth sending again: the service pushed back or did not answer. A 4xx will not change.</summary>
    private static bool IsTransient(Outcome outcome) => outcome is Outcome.Throttled or Outcome.TimedOut or Outcome.ServerError or Outcome.NetworkError;
}
