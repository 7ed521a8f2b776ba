using System.Globalization;
using System.Numerics;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace StorageBench.Engine.Spec;

/// <summary>
/// How the spec reads numbers, so that each field has one rule and one message whatever the number looks like:
/// a whole-number field takes any JSON number that is whole (1000, 1e3, 1000.0); one beyond what its .NET type holds
/// (1e12 for an int, 1e30 for a long) is held at the type's limit and the validator judges the number as written
/// (<see cref="WrittenNumbers"/>), so it gets the field's own range message rather than Int32's. Text in quotes is
/// never a number ("1000" is rejected, not read as 1000).
/// </summary>
internal static class SpecNumbers
{
    public static readonly JsonConverter[] Converters = [new WholeConverter<int>(int.MinValue, int.MaxValue), new WholeConverter<long>(long.MinValue, long.MaxValue), new RealConverter()];

    /// <summary>Thrown for a value that is not a JSON number (the parser turns it into "must be a number").</summary>
    private static JsonException NotANumber() => new("not a number");

    private sealed class WholeConverter<T>(double min, double max) : JsonConverter<T> where T : struct, INumberBase<T>
    {
        public override T Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
        {
            if (reader.TokenType != JsonTokenType.Number)
            {
                throw NotANumber();
            }
            if (reader.TryGetInt64(out long whole))
            {
                return T.CreateSaturating(whole);
            }
            double value = Real(ref reader);
            if (double.IsNaN(value) || value != Math.Floor(value))
            {
                throw new JsonException("not a whole number");
            }
            // Out of the type's range: held at its limit; the validator compares the number as written.
            return T.CreateSaturating(Math.Clamp(value, min, max));
        }

        public override void Write(Utf8JsonWriter writer, T value, JsonSerializerOptions options) =>
            writer.WriteRawValue(value.ToString(null, CultureInfo.InvariantCulture), skipInputValidation: true);
    }

    private sealed class RealConverter : JsonConverter<double>
    {
        public override double Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
        {
            if (reader.TokenType != JsonTokenType.Number)
            {
                throw NotANumber();
            }
            // Beyond double's range (1e400): held at its limit, finite, so it serializes; the validator sees the number as written.
            return Math.Clamp(Real(ref reader), double.MinValue, double.MaxValue);
        }

        public override void Write(Utf8JsonWriter writer, double value, JsonSerializerOptions options) => writer.WriteNumberValue(value);
    }

    /// <summary>The number token as a double: ±Infinity when it is beyond double's range.</summary>
    private static double Real(ref Utf8JsonReader reader) =>
        reader.TryGetDouble(out double d) ? d : double.Parse(reader.ValueSpan, NumberStyles.Float, CultureInfo.InvariantCulture);

    /// <summary>Every number literal in the document by its path in lower case ("tableinsert.entitycount"), as written.</summary>
    public static WrittenNumbers Written(JsonElement root)
    {
        var found = new Dictionary<string, WrittenNumber>(StringComparer.OrdinalIgnoreCase);
        Walk(root, "", found);
        return new WrittenNumbers(found);
    }

    private static void Walk(JsonElement element, string path, Dictionary<string, WrittenNumber> found)
    {
        switch (element.ValueKind)
        {
            case JsonValueKind.Object:
                foreach (var p in element.EnumerateObject())
                {
                    Walk(p.Value, path.Length == 0 ? p.Name : $"{path}.{p.Name}", found);
                }
                break;
            case JsonValueKind.Number:
                string raw = element.GetRawText();
                double value = element.TryGetDouble(out double d) ? d : double.Parse(raw, NumberStyles.Float, CultureInfo.InvariantCulture);
                found[path] = new WrittenNumber(value, raw.Length <= 40 ? raw : raw[..37] + "...");
                break;
        }
    }
}

/// <summary>A number as the spec wrote it: its value (±Infinity past double's range) and its text.</summary>
public sealed record WrittenNumber(double Value, string Text);

/// <summary>
/// The numbers a spec wrote, by field path (case-insensitive). The validator judges these rather than the deserialized
/// values where they differ (a number too large for its field's type is held at the type's limit when read).
/// </summary>
public sealed class WrittenNumbers(IReadOnlyDictionary<string, WrittenNumber> byPath)
{
    public static readonly WrittenNumbers None = new(new Dictionary<string, WrittenNumber>());

    /// <summary>The number written at <paramref name="field"/> when it differs from <paramref name="read"/>; null otherwise.</summary>
    public WrittenNumber? Differing(string field, double read) =>
        byPath.TryGetValue(field, out var w) && w.Value != read ? w : null;
}
