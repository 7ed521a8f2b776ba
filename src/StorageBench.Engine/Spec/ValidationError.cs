namespace StorageBench.Engine.Spec;

/// <summary>
/// One broken rule: which field, what value, which rule. Rendered as "field: value rule". The field and the value are
/// cut to a short prefix (<see cref="MaxShownChars"/>): they come from the input, and an answer must stay small whatever was sent.
/// </summary>
public sealed record ValidationError(string Field, string Value, string Rule)
{
    /// <summary>The most characters of a field name or a value an error repeats.</summary>
    public const int MaxShownChars = 80;

    /// <summary>The most errors one answer lists (<see cref="Capped"/>): enough to fix a spec by, never a flood.</summary>
    public const int MaxListed = 25;

    public string Field { get; init; } = Cut(Field);

    public string Value { get; init; } = Cut(Value);

    public override string ToString() => $"{Field}: {Value} {Rule}";

    /// <summary>
    /// The first <see cref="MaxListed"/> errors, and when there are more, one line that counts the rest: what every list of
    /// errors that reaches a person or an answer goes through, so a body of 80,000 bad fields gets a short answer.
    /// </summary>
    public static IReadOnlyList<ValidationError> Capped(IReadOnlyList<ValidationError> errors) =>
        errors.Count <= MaxListed ? errors
            : [.. errors.Take(MaxListed), new("(spec)", $"{errors.Count - MaxListed:N0} more errors", $"are not listed: an answer names the first {MaxListed}; fix these and check again")];

    private static string Cut(string text)
    {
        if (text.Length <= MaxShownChars)
        {
            return text;
        }
        int keep = char.IsHighSurrogate(text[MaxShownChars - 2]) ? MaxShownChars - 2 : MaxShownChars - 1;   // never half a pair
        return text[..keep] + "…";
    }
}

/// <summary>Thrown by entry points when a spec is rejected; nothing has started.</summary>
public sealed class InvalidRunSpecException(IReadOnlyList<ValidationError> errors)
    : Exception("Invalid run spec:" + Environment.NewLine + string.Join(Environment.NewLine, errors.Select(e => "  " + e)))
{
    public IReadOnlyList<ValidationError> Errors { get; } = errors;
}
