using StorageBench.Engine;
using StorageBench.Engine.StorageCalls;

namespace StorageBench.Orchestration;

/// <summary>
/// How the orchestrators read Durable Task's <see cref="TaskFailedException"/> (an activity or a step sub-orchestration
/// failed): its <see cref="TaskFailureDetails"/> carry the exception's type, message, stack and inner failure, never the
/// exception itself, because failures cross a serialization boundary.
/// </summary>
public static class TaskFailures
{
    /// <summary>Most stack text kept per failure in a one-line report: history and step errors stay within the payload budget.</summary>
    private const int MaxStackChars = 1200;

    /// <summary>The task was stopped (host shutdown), not broken.</summary>
    public static bool IsCancellation(this TaskFailedException e) => e.FailureDetails.IsCausedBy<OperationCanceledException>();

    /// <summary>What an orchestrator's errors say of an exception it caught: a failed task's one line, else the message.</summary>
    public static string Describe(Exception ex) => ex is TaskFailedException failed ? failed.Line() : ex.Message;

    /// <summary><see cref="Report(TaskFailedException)"/> for a failed task, else the message.</summary>
    public static string Report(Exception ex) => ex is TaskFailedException failed ? failed.Report() : ex.Message;

    /// <summary>One line: which task failed, the exception's short type name and its compacted message.</summary>
    public static string Line(this TaskFailedException e) => Line(e.TaskName, e.FailureDetails);

    public static string Line(string taskName, TaskFailureDetails failure) =>
        $"{(taskName == StepOrchestrator.Name ? "step" : "activity")} {taskName} failed: {ShortName(failure.ErrorType)}: {ErrorText.Compact(failure.ErrorMessage)}";

    /// <summary>
    /// What a summary's errors say about a failure: its line, and for a failure that is not a classified storage failure
    /// (a bug, not storage) its inner failures and the stack's first frames — what a reader needs the next morning to find where it broke.
    /// </summary>
    public static string Report(this TaskFailedException e) =>
        e.FailureDetails.IsCausedBy<StorageCallFailedException>() || Details(e.FailureDetails) is not { Length: > 0 } details ? e.Line() : $"{e.Line()}; {details}";

    private static string Details(TaskFailureDetails failure)
    {
        var parts = new List<string>();
        for (var inner = failure.InnerFailure; inner is not null; inner = inner.InnerFailure)
        {
            parts.Add($"caused by {inner.ErrorType}: {inner.ErrorMessage}");
        }
        var deepest = failure;
        while (deepest.InnerFailure is { StackTrace: not null } next)
        {
            deepest = next;
        }
        foreach (var f in new[] { failure, deepest }.Distinct().Where(f => !string.IsNullOrWhiteSpace(f.StackTrace)))
        {
            string frames = string.Join(" | ", f.StackTrace!.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
            parts.Add($"stack of {ShortName(f.ErrorType)}: {(frames.Length > MaxStackChars ? frames[..MaxStackChars] + " …" : frames)}");
        }
        return string.Join("; ", parts);
    }

    private static string ShortName(string type) => type[(type.LastIndexOf('.') + 1)..];
}
