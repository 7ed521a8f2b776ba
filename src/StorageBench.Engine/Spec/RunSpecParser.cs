using System.Text.Json;
using System.Text.Json.Serialization;

namespace StorageBench.Engine.Spec;

/// <summary>JSON → validated <see cref="RunSpec"/>. Unknown fields are errors: a typo must not silently fall back to a default.</summary>
public static class RunSpecParser
{
    public static readonly JsonSerializerOptions Options = new(JsonSerializerDefaults.Web)
    {
        UnmappedMemberHandling = JsonUnmappedMemberHandling.Disallow,
        ReadCommentHandling = JsonCommentHandling.Skip,
        AllowTrailingCommas = true,
    };

    /// <summary>Parses and validates; returns the spec or the list of errors (never both).</summary>
    public static (RunSpec? Spec, IReadOnlyList<ValidationError> Errors) Parse(string json)
    {
        RunSpec? spec;
        try
        {
            spec = JsonSerializer.Deserialize<RunSpec>(json, Options);
        }
        catch (JsonException ex)
        {
            string field = string.IsNullOrEmpty(ex.Path) || ex.Path == "$" ? "(spec)" : ex.Path.TrimStart('$', '.');
            return (null, [new ValidationError(field, "(json)", "is not valid: " + FirstSentence(ex.Message))]);
        }
        if (spec is null)
        {
            return (null, [new ValidationError("(spec)", "null", "must be a JSON object")]);
        }
        var errors = RunSpecValidator.Validate(spec);
        return errors.Count == 0 ? (spec, errors) : (null, errors);
    }

    /// <summary>Parses and validates, throwing <see cref="InvalidRunSpecException"/> on any error.</summary>
    public static RunSpec ParseOrThrow(string json)
    {
        var (spec, errors) = Parse(json);
        return spec ?? throw new InvalidRunSpecException(errors);
    }

    private static string FirstSentence(string message)
    {
        int cut = message.IndexOf(" Path:", StringComparison.Ordinal);
        return cut > 0 ? message[..cut] : message;
    }
}
