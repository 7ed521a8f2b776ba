using Microsoft.Extensions.Logging;

namespace StorageBench.Functions;

/// <summary>
/// The Function App's own log messages, source-generated, event ids 4000–4999 (docs/faults.md lists every id). With the
/// app's Application Insights wiring (Program.cs) they are traces with customDimensions.EventId.
/// </summary>
internal static partial class Logs
{
    [LoggerMessage(EventId = 4001, Level = LogLevel.Information, Message = "Nightly run {RunId} started (timer past due: {PastDue})")]
    public static partial void NightlyRunStarted(this ILogger logger, string? runId, bool pastDue);

    /// <summary>A second fire on the same date (restart, scale-out, manual trigger) starts nothing.</summary>
    [LoggerMessage(EventId = 4002, Level = LogLevel.Information, Message = "Nightly run {RunId} already exists; nothing started")]
    public static partial void NightlyRunExists(this ILogger logger, string? runId);

    [LoggerMessage(EventId = 4003, Level = LogLevel.Error, Message = "Nightly spec rejected, nothing started: {Errors}")]
    public static partial void NightlySpecRejected(this ILogger logger, string errors);
}
