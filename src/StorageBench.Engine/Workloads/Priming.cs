using StorageBench.Engine.Measurement;

namespace StorageBench.Engine.Workloads;

/// <summary>Requests sent before the start barrier to warm a slice up: untimed, uncounted, and their answers do not matter.</summary>
internal static class Priming
{
    /// <summary>Priming stops this long before the start instant, so it never delays the synchronized start.</summary>
    public static readonly TimeSpan Margin = TimeSpan.FromMilliseconds(250);

    /// <summary>At most this many of a slice's in-flight loops are primed: priming stays small next to the run.</summary>
    public const int MaxLoops = 16;

    /// <summary>True while another priming round still fits before the start instant.</summary>
    public static bool HasTime(DateTime startAtUtc, TimeProvider time) => time.GetUtcNow().UtcDateTime < startAtUtc - Margin;

    /// <summary>
    /// Awaits a priming request and ignores what storage answered (a 404, or a 503 that the measured
    /// requests will meet and count). Only failures that are bugs, not storage answers, escape.
    /// </summary>
    public static async Task Quietly(Task request)
    {
        try
        {
            await request.ConfigureAwait(false);
        }
        catch (Exception ex) when (OutcomeClassifier.Classify(ex, CancellationToken.None) is not null)
        {
        }
    }
}
