using System.Diagnostics;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// Stops a slice whose storage has gone away. Throttling and errors the service answers with are
/// results to count, however many; but when nothing has succeeded for <see cref="Silence"/> and every
/// request since has died without an answer (connection refused or reset, or timed out), the slice
/// stops sending and says why — instead of failing request after request until its count or
/// duration runs out. Thread-safe: the slice's loops share one.
/// </summary>
/// <param name="endpoint">The service endpoint the slice writes to: the reason names it, so a user knows which storage went away.</param>
internal sealed class UnreachableBreaker(int loops, CancellationTokenSource stop, Uri endpoint)
{
    /// <summary>How long storage must have been silent before a slice gives up on it.</summary>
    public static readonly TimeSpan Silence = TimeSpan.FromSeconds(5);

    private long _lastAnswer = Stopwatch.GetTimestamp();
    private int _unanswered;

    /// <summary>Why the slice stopped early, or null.</summary>
    public string? Reason { get; private set; }

    public void Observe(Outcome outcome)
    {
        if (outcome is not (Outcome.NetworkError or Outcome.TimedOut))
        {
            // Any answer from the service, even a 503, means it is there.
            Interlocked.Exchange(ref _unanswered, 0);
            Interlocked.Exchange(ref _lastAnswer, Stopwatch.GetTimestamp());
            return;
        }
        int unanswered = Interlocked.Increment(ref _unanswered);
        var silent = Stopwatch.GetElapsedTime(Interlocked.Read(ref _lastAnswer));
        // At least one unanswered request per in-flight loop, so one slow connection does not stop a slice.
        if (unanswered >= Math.Max(loops, 3) && silent >= Silence && Reason is null)
        {
            Reason = $"storage unreachable at {endpoint.GetLeftPart(UriPartial.Path)}: {unanswered} requests in a row got no answer (network error or timeout) and none for {silent.TotalSeconds:0.0} s";
            stop.Cancel();
        }
    }
}
