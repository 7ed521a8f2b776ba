using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace StorageBench.Engine.Spec;

/// <summary>Makes the per-step specs of a sweep or saturation search: the base spec with one numeric field set.</summary>
public static class SpecVariants
{
    /// <summary>The spec each step runs: the spec itself, or one per value of its sweep or saturation search.</summary>
    public static IEnumerable<RunSpec> Steps(RunSpec spec) =>
        spec.Sweep is { } sweep ? sweep.Values.Select(v => Apply(spec, sweep.Parameter, v))
        : spec.Saturation is { } search ? search.Values().Select(v => Apply(spec, search.Parameter, v))
        : [spec];

    /// <summary>The spec with <paramref name="parameter"/> set to <paramref name="value"/>, and no sweep or saturation of its own.</summary>
    public static RunSpec Apply(RunSpec spec, string parameter, double value)
    {
        var root = JsonSerializer.SerializeToNode(spec with { Sweep = null, Saturation = null }, RunSpecParser.Options)!.AsObject();
        var (parent, leaf) = Locate(root, parameter) ?? throw new ArgumentException($"{parameter} is not a numeric field of the spec", nameof(parameter));
        parent[leaf] = value == Math.Floor(value) && Math.Abs(value) < 1e15 ? JsonValue.Create((long)value) : JsonValue.Create(value);
        return root.Deserialize<RunSpec>(RunSpecParser.Options)!;
    }

    /// <summary>Errors for a sweep or search: an unknown parameter, or a value that makes an invalid spec.</summary>
    public static IEnumerable<ValidationError> Validate(RunSpec spec, string field, string parameter, IEnumerable<double> values)
    {
        var root = JsonSerializer.SerializeToNode(spec with { Sweep = null, Saturation = null }, RunSpecParser.Options)!.AsObject();
        if (Locate(root, parameter) is null)
        {
            yield return new ValidationError(field + ".parameter", $"\"{parameter}\"",
                "must name a numeric field of a workload the spec runs, e.g. tableInsert.batchSize or blobUpload.blockSizeBytes");
            yield break;
        }
        int i = 0;
        foreach (double value in values)
        {
            i++;
            string at = $"{field} value {value.ToString(CultureInfo.InvariantCulture)}";
            RunSpec? variant;
            try
            {
                variant = Apply(spec, parameter, value);
            }
            catch (JsonException)
            {
                // E.g. 1.5 for an integer field, or a value beyond its range.
                variant = null;
            }
            if (variant is null)
            {
                yield return new ValidationError($"{at} → {parameter}", value.ToString(CultureInfo.InvariantCulture), "does not fit the field (a whole number within its range is needed)");
                continue;
            }
            // The value as the sweep or search gives it: one too large for the field's type is judged as it is, not at the type's limit.
            var written = new WrittenNumbers(new Dictionary<string, WrittenNumber>(StringComparer.OrdinalIgnoreCase)
            {
                [parameter] = new(value, value.ToString(CultureInfo.InvariantCulture)),
            });
            foreach (var e in RunSpecValidator.Validate(variant, written))
            {
                yield return e with { Field = $"{at} → {e.Field}" };
            }
        }
        if (i == 0)
        {
            yield return new ValidationError(field, "(no values)", "must produce at least one value");
        }
    }

    private static (JsonObject Parent, string Leaf)? Locate(JsonObject root, string path)
    {
        var parts = path.Split('.');
        JsonObject? node = root;
        for (int i = 0; i < parts.Length - 1 && node is not null; i++)
        {
            node = node[parts[i]] as JsonObject;
        }
        return node?[parts[^1]] is JsonValue v && v.GetValueKind() == JsonValueKind.Number ? (node, parts[^1]) : null;
    }
}
