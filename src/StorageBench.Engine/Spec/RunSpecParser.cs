using System.Reflection;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;
using System.Text.RegularExpressions;

namespace StorageBench.Engine.Spec;

/// <summary>
/// JSON → validated <see cref="RunSpec"/>. Unknown fields are errors (a typo must not silently fall back
/// to a default), and every error is said in the spec's own terms: the field's path, the value as
/// written, and what it must be — not the serializer's .NET type names.
/// </summary>
public static partial class RunSpecParser
{
    public static readonly JsonSerializerOptions Options = new(JsonSerializerDefaults.Web)
    {
        // Set, so the parser can ask it for a section's fields in their written order before it has read a spec (FieldsOf).
        TypeInfoResolver = new DefaultJsonTypeInfoResolver(),
        UnmappedMemberHandling = JsonUnmappedMemberHandling.Disallow,
        // Field names are case-sensitive (docs/spec.md): "entitycount" is refused, not read as entityCount.
        PropertyNameCaseInsensitive = false,
        ReadCommentHandling = JsonCommentHandling.Skip,
        AllowTrailingCommas = true,
        // "1000" in quotes is text, not a number (the Web defaults would read it as one).
        NumberHandling = JsonNumberHandling.Strict,
        Converters = { SpecNumbers.Converters[0], SpecNumbers.Converters[1], SpecNumbers.Converters[2] },
    };

    private static readonly JsonDocumentOptions DocumentOptions = new() { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true };

    [GeneratedRegex(@"\s*(Path:.*)?LineNumber: \d+ \| BytePositionInLine: \d+\.?\s*$")]
    private static partial Regex ReaderPosition();

    [GeneratedRegex(@"\s+")]
    private static partial Regex Whitespace();

    /// <summary>Parses and validates; returns the spec or the list of errors (never both), at most <see cref="ValidationError.MaxListed"/> and a count of the rest.</summary>
    public static (RunSpec? Spec, IReadOnlyList<ValidationError> Errors) Parse(string json)
    {
        var (spec, errors) = ParseAll(json);
        return (spec, ValidationError.Capped(errors));
    }

    private static (RunSpec? Spec, IReadOnlyList<ValidationError> Errors) ParseAll(string json)
    {
        if (string.IsNullOrWhiteSpace(json))
        {
            return Fail("(spec)", "(empty)", "must be a run spec: a JSON object such as { \"scenario\": \"quick\", \"tableInsert\": {} }");
        }
        if (LoneSurrogate(json) is int at)
        {
            // JSON text is Unicode: a half of a UTF-16 pair cannot be read (JsonDocument would throw ArgumentException).
            return Fail("(spec)", "(text)", $"is not valid Unicode text: character {at + 1} is half of a UTF-16 surrogate pair (U+{(int)json[at]:X4}); save the spec as UTF-8");
        }
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(json, DocumentOptions);
        }
        catch (JsonException ex)
        {
            return Fail("(spec)", "(json)", SyntaxRule(json, ex));
        }
        using (document)
        {
            if (document.RootElement.ValueKind != JsonValueKind.Object)
            {
                return Fail("(spec)", Shown(document.RootElement), "must be a JSON object");
            }
            // Every duplicate and unknown field at once, not only the serializer's first.
            var shape = DuplicateKeys(json);
            shape.AddRange(UnknownFields(document.RootElement));
            if (shape.Count > 0)
            {
                return (null, shape);
            }
            RunSpec? spec;
            try
            {
                spec = document.Deserialize<RunSpec>(Options);
            }
            catch (JsonException ex)
            {
                return (null, [FieldError(ex, document.RootElement)]);
            }
            if (spec is null)
            {
                return Fail("(spec)", "null", "must be a JSON object");
            }
            var errors = RunSpecValidator.Validate(spec, SpecNumbers.Written(document.RootElement));
            return errors.Count == 0 ? (spec, errors) : (null, errors);
        }
    }

    /// <summary>Parses and validates, throwing <see cref="InvalidRunSpecException"/> on any error.</summary>
    public static RunSpec ParseOrThrow(string json)
    {
        var (spec, errors) = Parse(json);
        return spec ?? throw new InvalidRunSpecException(errors);
    }

    /// <summary>The index of the first character that is half of a surrogate pair without its other half; null when there is none.</summary>
    private static int? LoneSurrogate(string text)
    {
        for (int i = 0; i < text.Length; i++)
        {
            if (char.IsHighSurrogate(text[i]) && i + 1 < text.Length && char.IsLowSurrogate(text[i + 1]))
            {
                i++;
            }
            else if (char.IsSurrogate(text[i]))
            {
                return i;
            }
        }
        return null;
    }

    private static (RunSpec?, IReadOnlyList<ValidationError>) Fail(string field, string value, string rule) => (null, [new ValidationError(field, value, rule)]);

    /// <summary>"is not valid JSON: line 3, column 12: …", with a hint when curl --data has eaten the line breaks.</summary>
    internal static string SyntaxRule(string json, JsonException ex)
    {
        string what = Whitespace().Replace(ReaderPosition().Replace(ex.Message, ""), " ").TrimEnd('.', ' ');
        string rule = $"is not valid JSON: line {(ex.LineNumber ?? 0) + 1}, column {(ex.BytePositionInLine ?? 0) + 1}: {what}";
        return !json.Contains('\n') && json.Contains("//", StringComparison.Ordinal)
            ? rule + " (the text has // comments but no line breaks, so the first comment hides the rest: curl --data strips newlines; send a file with --data-binary @FILE)"
            : rule;
    }

    /// <summary>A value the serializer could not put in its field: an unknown field, or a value of the wrong kind.</summary>
    private static ValidationError FieldError(JsonException ex, JsonElement root)
    {
        string field = (ex.Path ?? "$").TrimStart('$', '.');
        var (parent, property) = Resolve(field);
        if (ex.Message.Contains("could not be mapped to any .NET member", StringComparison.Ordinal))
        {
            string known = parent is null ? "" : "; the known fields are " + string.Join(", ", FieldsOf(parent).Select(f => f.Name));
            int dot = field.LastIndexOf('.');
            return new ValidationError(field, "(unknown field)", $"is not a field of {(dot < 0 ? "the spec" : field[..dot])}{known}");
        }
        var element = Find(root, field);
        return new ValidationError(field.Length == 0 ? "(spec)" : field, element is { } e ? Shown(e) : "(json)", Expected(property?.PropertyType, field, element));
    }

    /// <summary>What a field of this type must be, in words; a whole number too large for its field says its limit.</summary>
    private static string Expected(Type? type, string field, JsonElement? value)
    {
        if (field.EndsWith(']'))
        {
            type = type?.GetElementType();
        }
        type = type is null ? null : Nullable.GetUnderlyingType(type) ?? type;
        if (type == typeof(int) || type == typeof(long))
        {
            return value is { ValueKind: JsonValueKind.Number } ? "must be a whole number" : "must be a number (a whole number, without quotes)";
        }
        return type == typeof(double) ? value is { ValueKind: JsonValueKind.String } ? "must be a number (without quotes)" : "must be a number"
            : type == typeof(bool) ? "must be true or false"
            : type == typeof(string) ? "must be text in double quotes"
            : type?.IsArray == true ? "must be a list in [ ]"
            : "must be an object in { }";
    }

    /// <summary>The spec record and property a path like "tableInsert.slices" or "sweep.values[2]" names.</summary>
    private static (Type? Parent, PropertyInfo? Property) Resolve(string path)
    {
        Type? type = typeof(RunSpec), parent = null;
        PropertyInfo? property = null;
        foreach (string part in path.Split('.', StringSplitOptions.RemoveEmptyEntries))
        {
            string name = part.Split('[')[0];
            parent = type;
            property = type?.GetProperty(name, BindingFlags.Public | BindingFlags.Instance | BindingFlags.IgnoreCase);
            type = property?.PropertyType is { } t ? Nullable.GetUnderlyingType(t) ?? t : null;
            if (part.Contains('[') && type?.IsArray == true)
            {
                type = type.GetElementType();
            }
        }
        return (parent, property);
    }

    private static JsonElement? Find(JsonElement root, string path)
    {
        var current = root;
        foreach (string part in path.Split('.', StringSplitOptions.RemoveEmptyEntries))
        {
            string name = part.Split('[')[0];
            if (current.ValueKind != JsonValueKind.Object || !TryGetProperty(current, name, out current))
            {
                return null;
            }
            foreach (Match index in Regex.Matches(part, @"\[(\d+)\]"))
            {
                int i = int.Parse(index.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture);
                if (current.ValueKind != JsonValueKind.Array || i >= current.GetArrayLength())
                {
                    return null;
                }
                current = current[i];
            }
        }
        return current;
    }

    private static bool TryGetProperty(JsonElement element, string name, out JsonElement value)
    {
        foreach (var p in element.EnumerateObject())
        {
            if (string.Equals(p.Name, name, StringComparison.OrdinalIgnoreCase))
            {
                value = p.Value;
                return true;
            }
        }
        value = default;
        return false;
    }

    /// <summary>The value as the user wrote it, shortened.</summary>
    private static string Shown(JsonElement e)
    {
        string raw = e.GetRawText();
        return raw.Length <= 40 ? raw : raw[..37] + "...";
    }
}
