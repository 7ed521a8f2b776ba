using System.Reflection;

namespace StorageBench.Orchestration;

/// <summary>
/// Why an activity or sub-orchestration failed, as it crosses the activity boundary: modelled on Durable Task's
/// TaskFailureDetails (microsoft/durabletask-dotnet src/Abstractions/TaskFailureDetails.cs) — the exception's
/// full type name, message, stack trace and inner failure, serializable, never the exception itself.
/// </summary>
public sealed record FailureDetails(string ErrorType, string ErrorMessage, string? StackTrace, FailureDetails? InnerFailure)
{
    /// <summary>Most stack text kept per failure in a one-line report: history and step errors stay within the payload budget.</summary>
    private const int MaxStackChars = 1200;

    public static FailureDetails FromException(Exception ex) =>
        new(ex.GetType().FullName!, ex.Message, ex.StackTrace, ex.InnerException is { } inner ? FromException(inner) : null);

    /// <summary>
    /// True when the failure was an exception of type <typeparamref name="T"/> or one derived from it: the type is
    /// loaded by name, as Durable Task's IsCausedBy does; a type that cannot be loaded is not the cause.
    /// </summary>
    public bool IsCausedBy<T>() where T : Exception => LoadedType() is { } type && typeof(T).IsAssignableFrom(type);

    /// <summary>
    /// One line for a summary's errors: the inner failures by type and message, then the stack's first frames —
    /// what a reader needs the next morning to find where it broke.
    /// </summary>
    public string Report()
    {
        var parts = new List<string>();
        for (var inner = InnerFailure; inner is not null; inner = inner.InnerFailure)
        {
            parts.Add($"caused by {inner.ErrorType}: {inner.ErrorMessage}");
        }
        var deepest = this;
        while (deepest.InnerFailure is { StackTrace: not null } next)
        {
            deepest = next;
        }
        foreach (var f in new[] { this, deepest }.Distinct().Where(f => !string.IsNullOrWhiteSpace(f.StackTrace)))
        {
            string frames = string.Join(" | ", f.StackTrace!.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
            parts.Add($"stack of {ShortName(f.ErrorType)}: {(frames.Length > MaxStackChars ? frames[..MaxStackChars] + " …" : frames)}");
        }
        return string.Join("; ", parts);
    }

    internal static string ShortName(string type) => type[(type.LastIndexOf('.') + 1)..];

    private Type? LoadedType()
    {
        if (Type.GetType(ErrorType, throwOnError: false) is { } type)
        {
            return type;
        }
        // Types of any loaded assembly (the engine's, the SDK's): exactly one must match.
        var matches = AppDomain.CurrentDomain.GetAssemblies().Select(a => a.GetType(ErrorType, throwOnError: false)).OfType<Type>().Distinct().ToList();
        return matches.Count == 1 ? matches[0] : matches.Count > 1 ? throw new AmbiguousMatchException($"Multiple exception types with the name '{ErrorType}' were found.") : null;
    }
}
