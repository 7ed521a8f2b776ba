using System.Text.Json;
using System.Text.Json.Nodes;

namespace StorageBench.Engine.Comparison;

/// <summary>
/// Every field in which two run specs differ, as "path: baseline → candidate", defaults included (a
/// field left out is its default, so "omitted" and "the default written out" are the same spec). The
/// scenario name is ignored: it only names the run.
/// </summary>
public static class SpecDifferences
{
    public static IReadOnlyList<string> Between(RunSpec baseline, RunSpec candidate)
    {
        var a = JsonSerializer.SerializeToNode(baseline with { Scenario = "" }, JsonDefaults.Options);
        var b = JsonSerializer.SerializeToNode(candidate with { Scenario = "" }, JsonDefaults.Options);
        var differences = new List<string>();
        Walk("", a, b, differences);
        return differences;
    }

    private static void Walk(string path, JsonNode? a, JsonNode? b, List<string> differences)
    {
        if (a is JsonObject oa && b is JsonObject ob)
        {
            foreach (string key in oa.Select(p => p.Key).Union(ob.Select(p => p.Key)))
            {
                Walk(path.Length == 0 ? key : $"{path}.{key}", oa[key], ob[key], differences);
            }
            return;
        }
        if (!JsonNode.DeepEquals(a, b))
        {
            differences.Add($"{path}: {Text(a)} → {Text(b)}");
        }
    }

    private static string Text(JsonNode? node) => node is null ? "(none)" : node.ToJsonString();
}
