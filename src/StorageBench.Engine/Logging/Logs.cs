
namespace StorageBench.Engine.Logging;

/// <summary>
/// The engine's log messages, source-generated, with stable event ids in 1000–1999 (docs/faults.md lists every id
/// of every assembly). Each is a failure that was swallowed or degraded on purpose — the run goes on — logged once,
/// with its exception, so a run that went wrong at night can be read from the log the next morning.
/// </summary>
public static partial class Logs
{
    /// <summary>A storage call whose outcome on failure is to go on without it (a progress write or read, a cancel poll).</summary>
    [LoggerMessage(EventId = 1001, Level = LogLevel.Warning, Message = "Storage call '{Call}' skipped: {Failure}")]
    public static partial void StorageCallSkipped(this ILogger logger, Exception exception, string call, string failure);

    /// <summary>A slice's priming request that storage refused or did not answer: counted in the slice's priming figures; the first per slice is logged.</summary>
    [LoggerMessage(EventId = 1201, Level = LogLevel.Information, Message = "Priming request of slice {Slice} failed ({Outcome}); counted as priming, not measured")]
    public static partial void PrimingRequestFailed(this ILogger logger, Exception exception, int slice, Outcome outcome);

    /// <summary>A Put Block or Put Block List sent again: the attempt that failed is counted; the wait chosen, and what the service asked for.</summary>
    [LoggerMessage(EventId = 1202, Level = LogLevel.Debug, Message = "Blob request of slice {Slice} {Outcome}; retry {Retry} in {WaitMs:0} ms (service asked {ServerDelayMs} ms)")]
    public static partial void BlockRetryScheduled(this ILogger logger, Exception exception, int slice, Outcome outcome, int retry, double waitMs, double? serverDelayMs);

    /// <summary>A run refused before it started: an endpoint refused the credentials or did not answer.</summary>
    [LoggerMessage(EventId = 1301, Level = LogLevel.Warning, Message = "Preflight refused the run: {Failure}")]
    public static partial void PreflightRefused(this ILogger logger, Exception exception, string failure);
}
