using StorageBench.Engine.Logging;

namespace StorageBench.Engine.Workloads;

/// <summary>Requests sent before the start barrier to warm a slice up: untimed, uncounted, and their answers do not matter.</summary>
internal static class Priming
{
    /// <summary>The attempt id priming writes under: its rows and blobs are never a measured execution's (verification skips them).</summary>
    public const string Attempt = "0primer0";

    /// <summary>Priming stops this long before the start instant, so it never delays the synchronized start.</summary>
    public static readonly TimeSpan Margin = TimeSpan.FromMilliseconds(250);

    /// <summary>At most this many of a slice's in-flight loops are primed: priming stays small next to the run.</summary>
    public const int MaxLoops = 16;

    /// <summary>
    /// Entities a priming request writes or reads (a transaction of one, a query for one); a blob's is <see cref="BlobBytes"/>.
    /// Priming opens connections and runs the request's code once: a workload-sized request would move a share of the
    /// workload itself (a download's 4 MiB ranges, a 100-entity batch) before the window, and the bill with it.
    /// </summary>
    public const int Entities = 1;

    /// <summary>The bytes a priming request sends or asks for on a blob (Put Block, Put Page, a ranged Get Blob).</summary>
    public const int BlobBytes = 4096;

    /// <summary>True while another priming round still fits before the start instant.</summary>
    public static bool HasTime(DateTime startAtUtc, TimeProvider time) => time.GetUtcNow().UtcDateTime < startAtUtc - Margin;

    /// <summary>
    /// True while another round like the last one (<paramref name="lastRound"/> long) still ends before the start
    /// instant with the margin to spare. On a busy machine a round takes longer than the fixed margin, and a
    /// round begun just before it ran past the start: the slice then started late by that overrun.
    /// </summary>
    public static bool HasTime(DateTime startAtUtc, TimeProvider time, TimeSpan lastRound) =>
        time.GetUtcNow().UtcDateTime + lastRound < startAtUtc - Margin;

}

/// <summary>
/// What a slice's priming requests met, kept apart from the measured window: how many were sent, how many
/// the service throttled (503, 500 OperationTimedOut) and how many failed otherwise. A 404 (the probe's
/// expected answer) is an answer, not a failure. Thread-safe: the primed loops run at once. The first failure
/// is logged with its exception (the counts say how many there were).
/// </summary>
internal sealed class PrimingTally(ILogger? logger = null, int slice = 0)
{
    private long _requests;
    private long _throttled;
    private long _failed;

    /// <summary>Awaits a priming request, counts how it ended, and lets only bugs escape: what storage answered (a 404, or a 503 the measured requests will meet and count) is not a priming failure to stop for.</summary>
    public async Task Quietly(Task request)
    {
        Interlocked.Increment(ref _requests);
        try
        {
            await request.ConfigureAwait(false);
        }
        catch (Exception ex) when (OutcomeClassifier.Classify(ex, CancellationToken.None) is { } outcome)
        {
            if (ex is Azure.RequestFailedException { Status: 404 })
            {
                return;
            }
            if (Interlocked.Increment(ref _failed) == 1)
            {
                logger?.PrimingRequestFailed(ex, slice, outcome);
            }
            if (outcome == Outcome.Throttled)
            {
                Interlocked.Increment(ref _throttled);
            }
        }
    }

    /// <summary>The counts on the slice's requests record.</summary>
    public SliceRequests AddTo(SliceRequests requests) => requests with
    {
        PrimingRequests = Interlocked.Read(ref _requests), PrimingThrottled = Interlocked.Read(ref _throttled), PrimingFailed = Interlocked.Read(ref _failed),
    };
}
