using Microsoft.Extensions.Logging;

namespace StorageBench.Cli;

/// <summary>The CLI's log messages (shown with `run --verbose`), source-generated, event ids 3000–3999 (docs/faults.md lists every id).</summary>
public static partial class Logs
{
    [LoggerMessage(EventId = 3001, Level = LogLevel.Information, Message = "Run {RunId} started: scenario {Scenario}, target {TargetKind}, {Accounts} account(s)")]
    public static partial void RunStarted(this ILogger logger, string runId, string scenario, string targetKind, int accounts);

    [LoggerMessage(EventId = 3002, Level = LogLevel.Information, Message = "Run {RunId} ended {Status} with {Errors} error(s)")]
    public static partial void RunEnded(this ILogger logger, string runId, string status, int errors);

    [LoggerMessage(EventId = 3003, Level = LogLevel.Warning, Message = "Run {RunId}: the cancel signal could not be written; the run goes on")]
    public static partial void CancelSignalFailed(this ILogger logger, Exception exception, string runId);
}
