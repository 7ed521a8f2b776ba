using System.Diagnostics;

namespace StorageBench.Engine.Workloads;

/// <summary>Waits for the orchestrator's synchronized start, then anchors wall-clock seconds to the monotonic clock.</summary>
internal sealed class SliceClock
{
    private SliceClock(DateTime startedUtc, long startTimestamp)
    {
        StartedUtc = startedUtc;
        StartTimestamp = startTimestamp;
    }

    public DateTime StartedUtc { get; }

    public long StartTimestamp { get; }

    /// <summary>
    /// Waits for the start instant; a slice stopped while it waits starts at once (and its loops stop at once). A timer
    /// counts whole milliseconds on the monotonic clock and may fire a few ms before the wall clock reads the instant, so
    /// the wait goes on until the wall clock has passed it: no slice sends before the instant it was given.
    /// </summary>
    public static async Task<SliceClock> StartAtAsync(DateTime startAtUtc, TimeProvider time, CancellationToken ct)
    {
        var wait = startAtUtc - time.GetUtcNow().UtcDateTime;
        try
        {
            for (int round = 0; wait > TimeSpan.Zero; round++)
            {
                // After the first wait only a timer's rounding is left: wait at least 1 ms rather than spin.
                await Task.Delay(round == 0 ? wait : TimeSpan.FromMilliseconds(Math.Max(1, Math.Ceiling(wait.TotalMilliseconds))), time, ct).ConfigureAwait(false);
                wait = startAtUtc - time.GetUtcNow().UtcDateTime;
            }
        }
        catch (OperationCanceledException) when (ct.IsCancellationRequested)
        {
        }
        return new SliceClock(time.GetUtcNow().UtcDateTime, Stopwatch.GetTimestamp());
    }

    /// <summary>Seconds between the planned start and when this slice actually passed it (never negative).</summary>
    public double LagSeconds(DateTime startAtUtc) => Math.Max(0, (StartedUtc - startAtUtc).TotalSeconds);

    /// <summary>The monotonic timestamp of a wall-clock instant (a segment's origin, set by an earlier segment, maybe on another machine).</summary>
    public long TimestampOf(DateTime utc) => StartTimestamp - (long)((StartedUtc - utc).TotalSeconds * Stopwatch.Frequency);

    public WorkerRecorder NewRecorder(bool recordLatency = true, bool openLoop = false) =>
        new(StartedUtc.Ticks - DateTime.UnixEpoch.Ticks, StartTimestamp, recordLatency, openLoop);
}
