using System.Text.Json;
using StorageBench.Engine.Telemetry;

namespace StorageBench.Tests;

/// <summary>
/// What one query reads (from scripts/kql-check.js --reads): its tables, the event names it selects, and the
/// Properties and Measurements members it uses; and which of them no received item carries.
/// </summary>
internal sealed record QueryReads(string File, IReadOnlyList<string> Tables, IReadOnlyList<string> Events, IReadOnlyList<string> Properties, IReadOnlyList<string> Measurements)
{
    public static QueryReads From(JsonElement line)
    {
        IReadOnlyList<string> Strings(string name) => [.. line.GetProperty(name).EnumerateArray().Select(e => e.GetString()!)];
        return new(line.GetProperty("file").GetString()!, Strings("tables"), Strings("events"), Strings("properties"), Strings("measurements"));
    }

    /// <summary>
    /// One line per field this query reads that no item of its tables (and of its events, when it names some) carries:
    /// Kusto would give it an empty column. An empty property is not sent, so one event that has it is enough.
    /// </summary>
    public IEnumerable<string> Unsent(IReadOnlyList<(string? Table, AppEvent Row)> received)
    {
        var candidates = received.Where(r => r.Table is not null && Tables.Contains(r.Table) && (Events.Count == 0 || Events.Contains(r.Row.Name))).Select(r => r.Row).ToList();
        string what = Events.Count > 0 ? string.Join(" or ", Events) + " event" : string.Join(" or ", Tables) + " item";
        if (candidates.Count == 0)
        {
            yield return $"{File}: no {what} was sent";
            yield break;
        }
        foreach (var p in Properties.Where(p => !candidates.Any(c => c.Properties.ContainsKey(p))))
        {
            yield return $"{File} reads Properties.{p}, which no {what} sent";
        }
        foreach (var m in Measurements.Where(m => !candidates.Any(c => c.Measurements.ContainsKey(m))))
        {
            yield return $"{File} reads Measurements.{m}, which no {what} sent";
        }
    }
}
