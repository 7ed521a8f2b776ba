using System.Diagnostics;
using StorageBench.Engine.Measurement;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// One blob slice's request loop (Put Block and Put Block List, Put Page and the Put Blob that creates a page blob): send,
/// record the outcome, and retry what the service may accept later.
/// </summary>
/// <param name="retrying">Told of every retry: the failure, its outcome and the wait chosen (logged).</param>
internal sealed class RetriedBlobRequests(int retries, OperationSchedule schedule, UnreachableBreaker breaker, BlockRetryDelays delays,
    Action<Exception, Outcome, ChosenRetryDelay> retrying, CancellationToken ct)
{
    private long _operationIndex = -1;

    public OperationSchedule Schedule => schedule;

    /// <summary>
    /// Sends a request until it succeeds, fails for good, or the slice stops; records every attempt.
    /// <paramref name="countsAsBlock"/>: warmupOperations counts the measured data requests (Put Block, Put Page); a commit or a
    /// create is warm-up only by time.
    /// </summary>
    public async Task<bool> SendAsync(WorkerRecorder recorder, long units, Func<Task> request, bool countsAsBlock = true)
    {
        for (int attempt = 0; ; attempt++)
        {
            long start = Stopwatch.GetTimestamp();
            Outcome outcome;
            Exception? failure = null;
            try
            {
                await request().ConfigureAwait(false);
                outcome = Outcome.Succeeded;
            }
            catch (Exception ex) when (OutcomeClassifier.Classify(ex, CancellationToken.None) is { } failed)
            {
                outcome = failed;
                failure = ex;
            }
            long index = countsAsBlock ? Interlocked.Increment(ref _operationIndex) : long.MaxValue;
            recorder.Record(outcome, start, units, schedule.IsWarmup(index, start));
            breaker.Observe(outcome);
            if (outcome == Outcome.Succeeded)
            {
                return true;
            }
            if (attempt >= retries || !IsTransient(outcome) || ct.IsCancellationRequested)
            {
                return false;
            }
            var wait = delays.Next(attempt + 1, failure);
            retrying(failure!, outcome, wait);
            try
            {
                await Task.Delay(wait.Wait, ct).ConfigureAwait(false);
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
