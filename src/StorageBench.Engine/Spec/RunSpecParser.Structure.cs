using System.Reflection;
using System.Text;
using System.Text.Json;

namespace StorageBench.Engine.Spec;

/// <summary>
/// Checks of the spec's shape before it is deserialized, each reporting every case it finds (the
/// serializer stops at the first): a key given twice (the serializer would silently keep the last),
/// and fields that are not part of the spec, at any level.
/// </summary>
public static partial class RunSpecParser
{
    /// <summary>Every key that appears twice in one object, with both positions.</summary>
    internal static List<ValidationError> DuplicateKeys(string json)
    {
        var errors = new List<ValidationError>();
        byte[] utf8 = Encoding.UTF8.GetBytes(json);
        var reader = new Utf8JsonReader(utf8, new JsonReaderOptions { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true });
        // One frame per open object or array: its path, and for an object the keys seen with their line.
        var frames = new Stack<(string Path, Dictionary<string, string>? Keys, int Index)>();
        string? pendingName = null;
        var line = new LineCounter();
        while (reader.Read())
        {
            switch (reader.TokenType)
            {
                case JsonTokenType.PropertyName:
                    var (path, keys, _) = frames.Peek();
                    string name = reader.GetString()!;
                    string position = line.PositionOf(utf8, reader.TokenStartIndex);
                    string field = path.Length == 0 ? name : $"{path}.{name}";
                    if (keys!.TryGetValue(name, out string? first))
                    {
                        errors.Add(new ValidationError(field, "(duplicate key)", $"is given twice, at {first} and {position}; give it once"));
                    }
                    else
                    {
                        keys[name] = position;
                    }
                    pendingName = field;
                    break;
                case JsonTokenType.StartObject or JsonTokenType.StartArray:
                    string at = ValuePath(frames, ref pendingName);
                    frames.Push((at, reader.TokenType == JsonTokenType.StartObject ? new(StringComparer.Ordinal) : null, 0));
                    break;
                case JsonTokenType.EndObject or JsonTokenType.EndArray:
                    frames.Pop();
                    break;
                default:
                    _ = ValuePath(frames, ref pendingName);
                    break;
            }
        }
        return errors;
    }

    /// <summary>The path of the value the reader is at: the property just named, or the next index of the enclosing array.</summary>
    private static string ValuePath(Stack<(string Path, Dictionary<string, string>? Keys, int Index)> frames, ref string? pendingName)
    {
        if (pendingName is { } named)
        {
            pendingName = null;
            return named;
        }
        if (frames.Count == 0)
        {
            return "";
        }
        var (path, keys, index) = frames.Pop();
        frames.Push((path, keys, index + 1));
        return $"{path}[{index}]";
    }

    /// <summary>
    /// "line L, column C" of a byte offset, counted on from the last one asked (offsets only grow): one pass over the
    /// text however many keys, and a one-line spec's two keys differ by their column.
    /// </summary>
    private sealed class LineCounter
    {
        private int _offset;
        private int _line = 1;
        private int _column = 1;

        public string PositionOf(byte[] utf8, long offset)
        {
            int end = (int)Math.Min(offset, utf8.Length);
            for (; _offset < end; _offset++)
            {
                byte b = utf8[_offset];
                if (b == (byte)'\n')
                {
                    _line++;
                    _column = 1;
                }
                else if ((b & 0xC0) != 0x80)
                {
                    _column++; // a UTF-8 continuation byte is no new character
                }
            }
            return $"line {_line}, column {_column}";
        }
    }

    /// <summary>
    /// A workload's fixed count written beside a durationSeconds over 0: the timed run does not use it, and says so here
    /// rather than ignore it without a word. One line each ("tableInsert.entityCount 40000 is not used: …").
    /// </summary>
    public static IReadOnlyList<string> UnusedCounts(string json)
    {
        var notes = new List<string>();
        try
        {
            using var document = JsonDocument.Parse(json, DocumentOptions);
            foreach (var room in Workloads.WorkloadList.All)
            {
                if (document.RootElement.ValueKind == JsonValueKind.Object && document.RootElement.TryGetProperty(room.Name, out var section)
                    && section.ValueKind == JsonValueKind.Object && section.TryGetProperty(room.CountField, out var count)
                    && section.TryGetProperty("durationSeconds", out var duration) && duration.ValueKind == JsonValueKind.Number && duration.GetDouble() > 0)
                {
                    notes.Add($"{room.Name}.{room.CountField} {count.GetRawText()} is not used: durationSeconds {duration.GetRawText()} runs the workload for a time, not a count");
                }
            }
        }
        catch (JsonException)
        {
            // Not a spec: Parse says why.
        }
        return notes;
    }

    /// <summary>
    /// Every field, at every level, that is not a field of the record it appears in. Names are case-sensitive, as
    /// written in docs/spec.md: "entitycount" is refused, never read as entityCount. Each names the nearest field.
    /// </summary>
    internal static List<ValidationError> UnknownFields(JsonElement root)
    {
        var errors = new List<ValidationError>();
        UnknownFields(root, typeof(RunSpec), "", errors);
        return errors;
    }

    private static void UnknownFields(JsonElement element, Type type, string path, List<ValidationError> errors)
    {
        var known = FieldsOf(type);
        bool knownListed = false;
        foreach (var p in element.EnumerateObject())
        {
            string field = path.Length == 0 ? p.Name : $"{path}.{p.Name}";
            var property = known.FirstOrDefault(k => k.Name == p.Name).Property;
            if (property is null)
            {
                // Past what an answer lists, only counted: no nearest name is looked for.
                string rule = errors.Count >= ValidationError.MaxListed ? ""
                    : StrictJsonObject.NotAField(p.Name, path.Length == 0 ? "the spec" : path, [.. known.Select(k => k.Name)], listKnown: !knownListed);
                knownListed = true;
                errors.Add(new ValidationError(field, "(unknown field)", rule));
                continue;
            }
            var child = Nullable.GetUnderlyingType(property.PropertyType) ?? property.PropertyType;
            if (p.Value.ValueKind == JsonValueKind.Object && child.IsClass && child != typeof(string) && !child.IsArray)
            {
                UnknownFields(p.Value, child, field, errors);
            }
        }
    }

    /// <summary>
    /// A spec object's fields in the order the spec writes them: the serializer's, which keeps a base record's fields where their
    /// JsonPropertyOrder puts them (reflection would list a derived record's own fields first).
    /// </summary>
    internal static List<(string Name, PropertyInfo Property)> FieldsOf(Type type) =>
        [.. Options.GetTypeInfo(type).Properties.Where(p => p.Set is not null && p.AttributeProvider is PropertyInfo)
            .Select(p => (p.Name, (PropertyInfo)p.AttributeProvider!))];
}
