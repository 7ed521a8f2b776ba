using Microsoft.Extensions.Logging;

namespace StorageBench.Orchestration;

/// <summary>
/// The orchestration layer's log messages, source-generated, with stable event ids in 2000–2999 (docs/faults.md lists
/// every id). Each is a failure the run survives by design — logged once, with its exception — or an activity that failed.
/// </summary>
public static partial class Logs
{
    /// <summary>A slice's bookkeeping write (its final progress, its row) that storage did not take: the figures travel on in its result.</summary>
    [LoggerMessage(EventId = 2001, Level = LogLevel.Warning, Message = "Slice {Slice} of {StepId}: {What}: {Reason}")]
    public static partial void SliceBookkeepingSkipped(this ILogger logger, Exception exception, int slice, string stepId, string what, string reason);

    /// <summary>A slice's watch loop (cancel polls, progress) met something that is not a storage failure (a bug): the slice goes on.</summary>
    [LoggerMessage(EventId = 2002, Level = LogLevel.Error, Message = "Slice {Slice} of {StepId}: progress or cancel poll failed (not a storage failure); the slice goes on")]
    public static partial void SliceWatchFailed(this ILogger logger, Exception exception, int slice, string stepId);

    /// <summary>Verification could not read storage: the figures are kept, marked not verified.</summary>
    [LoggerMessage(EventId = 2003, Level = LogLevel.Warning, Message = "Verification could not read storage ({What}): {Reason}; the figures are kept, not verified")]
    public static partial void NotVerified(this ILogger logger, Exception exception, string what, string reason);

    /// <summary>An activity threw: its failure details (type, message, stack, inner failure) go to the orchestrator; this is the exception itself.</summary>
    [LoggerMessage(EventId = 2004, Level = LogLevel.Error, Message = "Activity {Activity} of {InstanceId} failed")]
    public static partial void ActivityFailed(this ILogger logger, Exception exception, string activity, string instanceId);

    /// <summary>The step's last verification could not delete the step's targets after counting: the step deletes them in a hop of its own.</summary>
    [LoggerMessage(EventId = 2007, Level = LogLevel.Warning, Message = "The tables and containers of {StepId} were not deleted after its last verification; the step deletes them again")]
    public static partial void TargetsNotDeleted(this ILogger logger, Exception exception, string stepId);

    /// <summary>A slice stopped by its host's shutdown while its run was not canceled: no figures handed back; Durable runs it again.</summary>
    [LoggerMessage(EventId = 2006, Level = LogLevel.Warning, Message = "Slice {Slice} of {StepId} stopped by its host's shutdown {Why}, after {Units} units: no figures handed back; Durable runs the slice again")]
    public static partial void SliceLeftToRerun(this ILogger logger, int slice, string stepId, long units, string why);

    /// <summary>A runs API call that threw: answered 500 with the exception's type and compacted message; here it is whole.</summary>
    [LoggerMessage(EventId = 2005, Level = LogLevel.Error, Message = "Runs API call failed; answered 500")]
    public static partial void ApiCallFailed(this ILogger logger, Exception exception);
}
