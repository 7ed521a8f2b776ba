using System.Text.Json;

namespace StorageBench.Engine;

/// <summary>
/// A flat JSON file of named fields (the price table, the scalability targets), read as strictly as the run spec
/// (<see cref="RunSpecParser"/>): // comments allowed; each field read with its rule; a missing field, a value of the
/// wrong kind or outside its rule, and a field no one reads are each one error naming the field, the value and the rule
/// (an unknown one names the field meant when one is near). Every error at once, and no half-read object.
/// </summary>
public sealed class StrictJsonObject
{
    private static readonly JsonDocumentOptions DocumentOptions = new() { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true };

    private readonly JsonElement _root;
    private readonly string _what;
    private readonly List<string> _fields = [];
    private readonly List<ValidationError> _errors = [];

    private StrictJsonObject(JsonElement root, string what)
    {
        _root = root;
        _what = what;
    }

    /// <summary>The object, or the one error that says why the text is none.</summary>
    /// <param name="what">What the object is, as the errors say it: "a price table".</param>
    /// <param name="label">Where a whole-file error points: "(price table)".</param>
    /// <param name="objectRule">The rule when the text is JSON but no object: "must be a JSON object of prices (see …)".</param>
    public static (StrictJsonObject? Object, ValidationError? Error) Parse(string json, string what, string label, string objectRule)
    {
        try
        {
            using var document = JsonDocument.Parse(json, DocumentOptions);
            return document.RootElement.ValueKind == JsonValueKind.Object
                ? (new StrictJsonObject(document.RootElement.Clone(), what), null)
                : (null, new ValidationError(label, document.RootElement.GetRawText(), objectRule));
        }
        catch (JsonException ex)
        {
            return (null, new ValidationError(label, "(json)", RunSpecParser.SyntaxRule(json, ex)));
        }
    }

    /// <summary>A required number; <paramref name="rule"/> says what it must be ("a number above 0").</summary>
    public double Number(string field, string rule, Func<double, bool> valid) => Read(field, rule, required: true, NumberOf(valid)) ?? 0;

    /// <summary>A number that may be left out (null then).</summary>
    public double? OptionalNumber(string field, string rule, Func<double, bool> valid) => Read(field, rule, required: false, NumberOf(valid));

    /// <summary>A required text.</summary>
    public string Text(string field, string rule, Func<string, bool> valid) =>
        Read<string>(field, rule, required: true, v => v.ValueKind == JsonValueKind.String && valid(v.GetString()!) ? v.GetString() : null) ?? "";

    /// <summary>Every broken rule, unknown fields first; call once every field has been read.</summary>
    public IReadOnlyList<ValidationError> Errors() => ValidationError.Capped(
        [.. _root.EnumerateObject().Where(p => !_fields.Contains(p.Name, StringComparer.Ordinal)).Select((p, i) => new ValidationError(p.Name, "(unknown field)",
            i < ValidationError.MaxListed ? NotAField(p.Name, _what, _fields, listKnown: i == 0) : "")), .. _errors]);

    /// <summary>
    /// "is not a field of tableInsert; did you mean batchSize? the known fields are …". Names are case-sensitive: a
    /// name that differs from a field only in case says so. The known fields are listed once per object
    /// (<paramref name="listKnown"/> for its first unknown field), not with every unknown one.
    /// </summary>
    public static string NotAField(string name, string where, IReadOnlyList<string> known, bool listKnown = true)
    {
        if (known.FirstOrDefault(k => string.Equals(k, name, StringComparison.OrdinalIgnoreCase)) is { } sameLetters)
        {
            return $"is not a field of {where}: field names are case-sensitive; did you mean {sameLetters}?";
        }
        string near = Nearest.Closest(name, known) is { } n ? $"did you mean {n}? " : "";
        return listKnown ? $"is not a field of {where}; {near}the known fields are {string.Join(", ", known)}"
            : $"is not a field of {where}{(near.Length > 0 ? "; " + near.TrimEnd() : "")}";
    }

    private static Func<JsonElement, double?> NumberOf(Func<double, bool> valid) =>
        v => v.ValueKind == JsonValueKind.Number && v.TryGetDouble(out double n) && double.IsFinite(n) && valid(n) ? n : null;

    private T? Read<T>(string field, string rule, bool required, Func<JsonElement, T?> value)
    {
        _fields.Add(field);
        if (!_root.TryGetProperty(field, out var element))
        {
            if (required)
            {
                _errors.Add(new ValidationError(field, "(missing)", "is required: " + rule));
            }
            return default;
        }
        var read = value(element);
        if (read is null)
        {
            _errors.Add(new ValidationError(field, element.GetRawText(), "must be " + rule));
        }
        return read;
    }
}
