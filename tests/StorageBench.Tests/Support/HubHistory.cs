using System.Text.Json;
using DurableTask.Core.History;
using StorageBench.TaskHub;

namespace StorageBench.Tests;

/// <summary>One event of an instance's history as the Azure Storage provider stores it (its History table), for tests that look at what was scheduled.</summary>
internal sealed record HubEvent(EventType Type, string? Name, string? Input, string? InstanceId, DateTime Timestamp, JsonElement Raw);

internal static class HubHistory
{
    public static async Task<IReadOnlyList<HubEvent>> ReadAsync(LocalTaskHub hub, string instanceId)
    {
        using var json = JsonDocument.Parse(await hub.GetHistoryJsonAsync(instanceId));
        return [.. json.RootElement.EnumerateArray().Select(e => new HubEvent(
            (EventType)e.GetProperty("EventType").GetInt32(),
            Text(e, "Name"), Text(e, "Input"),
            e.TryGetProperty("InstanceId", out var id) && id.ValueKind == JsonValueKind.String ? id.GetString() : null,
            e.GetProperty("Timestamp").GetDateTime().ToUniversalTime(),
            e.Clone()))];
    }

    private static string? Text(JsonElement e, string name) => e.TryGetProperty(name, out var v) && v.ValueKind == JsonValueKind.String ? v.GetString() : null;
}
