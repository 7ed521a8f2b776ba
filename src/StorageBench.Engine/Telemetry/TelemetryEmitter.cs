using Azure.Core;
using Microsoft.ApplicationInsights;
using Microsoft.ApplicationInsights.Channel;
using Microsoft.ApplicationInsights.Extensibility;

namespace StorageBench.Engine.Telemetry;

/// <summary>
/// Sends a run to Application Insights as custom events (customEvents / AppEvents): one per run and
/// one per workload (per sweep step), with the run's parameters as dimensions and its figures as
/// measurements, so KQL can trend and compare them.
/// </summary>
public sealed class TelemetryEmitter : IDisposable
{
    public const string RunEvent = "StorageBenchRun";
    public const string WorkloadEvent = "StorageBenchWorkload";
    public const string RegressionEvent = "StorageBenchRegression";

    private readonly TelemetryConfiguration _configuration;
    private readonly TelemetryClient _client;

    /// <param name="credential">Set for AAD ingestion (local auth disabled on the resource), e.g. a managed identity.</param>
    public TelemetryEmitter(string connectionString, TokenCredential? credential = null)
    {
        _configuration = new TelemetryConfiguration { ConnectionString = connectionString, TelemetryChannel = new InMemoryChannel() };
        if (credential is not null)
        {
            _configuration.SetAzureTokenCredential(credential);
        }
        _client = new TelemetryClient(_configuration);
    }

    /// <summary>Sends the events (see <see cref="TelemetryEvents"/>) and flushes.</summary>
    public async Task EmitAsync(IEnumerable<AppEvent> events, CancellationToken ct)
    {
        foreach (var e in events)
        {
            _client.TrackEvent(e.Name, new Dictionary<string, string>(e.Properties), new Dictionary<string, double>(e.Measurements));
        }
        await _client.FlushAsync(ct).ConfigureAwait(false);
    }

    public void Dispose() => _configuration.Dispose();
}
