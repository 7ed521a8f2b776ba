using System.Text.Json;
using System.Text.Json.Serialization;

namespace StorageBench.Engine;

/// <summary>One JSON shape for summary.json, the HTTP payload and the orchestration boundary.</summary>
public static class JsonDefaults
{
    public static readonly JsonSerializerOptions Options = new(JsonSerializerDefaults.Web)
    {
        WriteIndented = true,
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
        NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
    };

    /// <summary>The same shape without indentation: what crosses the orchestration boundary (payload sizes count every byte).</summary>
    public static readonly JsonSerializerOptions Compact = new(Options) { WriteIndented = false };
}
