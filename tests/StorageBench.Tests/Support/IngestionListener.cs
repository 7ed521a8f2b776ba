using System.Collections.Concurrent;
using System.IO.Compression;
using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using StorageBench.Cli;
using StorageBench.Engine.Telemetry;

namespace StorageBench.Tests;

/// <summary>
/// Stands in for the Application Insights ingestion endpoint (Azure cannot be reached here): a
/// loopback listener that accepts what the SDK posts to /v2/track (gzip or plain, one JSON item per
/// line) and keeps every telemetry item it received.
/// </summary>
public sealed class IngestionListener : IAsyncDisposable
{
    private readonly ConcurrentQueue<JsonElement> _items = new();
    private LoopbackServer? _server;

    public const string InstrumentationKey = "11111111-2222-3333-4444-555555555555";

    public string ConnectionString => $"InstrumentationKey={InstrumentationKey};IngestionEndpoint={_server!.Address}";

    public IReadOnlyList<JsonElement> Items => [.. _items];

    public ConcurrentQueue<string> Paths { get; } = new();

    public static async Task<IngestionListener> StartAsync()
    {
        var listener = new IngestionListener();
        listener._server = await LoopbackServer.StartAsync(0, app => app.Run(listener.HandleAsync));
        return listener;
    }

    /// <summary>Custom events with this name: their data.baseData (name, properties, measurements).</summary>
    public IReadOnlyList<JsonElement> Events(string name) =>
        [.. Items.Where(i => i.GetProperty("data").GetProperty("baseType").GetString() == "EventData")
            .Select(i => i.GetProperty("data").GetProperty("baseData"))
            .Where(d => d.GetProperty("name").GetString() == name)];

    /// <summary>
    /// Every item as the workspace stores it: the table it lands in (AppEvents, AppTraces, AppExceptions, …; null for
    /// other kinds) and its name (events only), time, properties and measurements, as the queries read them.
    /// </summary>
    public IReadOnlyList<(string? Table, AppEvent Row)> Rows() =>
        [.. Items.Select(i =>
        {
            var data = i.GetProperty("data");
            var body = data.GetProperty("baseData");
            string? name = body.TryGetProperty("name", out var n) ? n.GetString() : null;
            var time = DateTime.Parse(i.GetProperty("time").GetString()!, System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.AdjustToUniversal);
            return (TableOf(data.GetProperty("baseType").GetString()), new AppEvent(name ?? "", time,
                Members(body, "properties").ToDictionary(kv => kv.Key, kv => kv.Value.GetString()!),
                Members(body, "measurements").ToDictionary(kv => kv.Key, kv => kv.Value.GetDouble())));
        })];

    /// <summary>The custom events received, as AppEvents rows.</summary>
    public IReadOnlyList<AppEvent> AppEvents() => [.. Rows().Where(r => r.Table == "AppEvents").Select(r => r.Row)];

    private static string? TableOf(string? baseType) => baseType switch
    {
        "EventData" => "AppEvents",
        "MessageData" => "AppTraces",
        "ExceptionData" => "AppExceptions",
        "RequestData" => "AppRequests",
        "RemoteDependencyData" => "AppDependencies",
        "MetricData" => "AppMetrics",
        _ => null,
    };

    private static IEnumerable<KeyValuePair<string, JsonElement>> Members(JsonElement body, string name) =>
        body.TryGetProperty(name, out var members) ? members.EnumerateObject().Select(p => KeyValuePair.Create(p.Name, p.Value)) : [];

    private async Task HandleAsync(HttpContext context)
    {
        Paths.Enqueue(context.Request.Path);
        Stream body = context.Request.Headers.ContentEncoding.ToString().Contains("gzip", StringComparison.OrdinalIgnoreCase)
            ? new GZipStream(context.Request.Body, CompressionMode.Decompress)
            : context.Request.Body;
        using var reader = new StreamReader(body);
        string text = await reader.ReadToEndAsync();
        int accepted = 0;
        foreach (var line in text.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            _items.Enqueue(JsonDocument.Parse(line).RootElement.Clone());
            accepted++;
        }
        context.Response.ContentType = "application/json";
        await context.Response.WriteAsync($$"""{"itemsReceived":{{accepted}},"itemsAccepted":{{accepted}},"errors":[]}""");
    }

    public async ValueTask DisposeAsync() => await _server!.DisposeAsync();
}
