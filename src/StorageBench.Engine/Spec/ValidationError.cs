namespace StorageBench.Engine.Spec;

/// <summary>One broken rule: which field, what value, which rule. Rendered as "field: value rule".</summary>
public sealed record ValidationError(string Field, string Value, string Rule)
{
    public override string ToString() => $"{Field}: {Value} {Rule}";
}

/// <summary>Thrown by entry points when a spec is rejected; nothing has started.</summary>
public sealed class InvalidRunSpecException(IReadOnlyList<ValidationError> errors)
    : Exception("Invalid run spec:" + Environment.NewLine + string.Join(Environment.NewLine, errors.Select(e => "  " + e)))
{
    public IReadOnlyList<ValidationError> Errors { get; } = errors;
}
