using Azure.Core;
using Azure.Identity;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Cost;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Telemetry;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;

namespace StorageBench.Functions;

/// <summary>
/// Builds the engine's objects from app settings (infra/bicep/modules/functionapp.bicep sets them in Azure,
/// local.settings.json locally). Targets and results are reached by endpoint with the managed identity in
/// Azure (AZURE_CLIENT_ID picks it), or by connection string for Azurite; no account keys. The activities log through the
/// worker's ILoggerFactory, so their warnings reach Application Insights (docs/function-app.md, "Logs").
/// </summary>
internal static class Wiring
{
    public const string NightlySpec = "STORAGEBENCH_NIGHTLY_SPEC";

    public static IServiceCollection AddStorageBench(this IServiceCollection services) => services
        .AddSingleton(TimeProvider.System)
        .AddSingleton(sp => Targets(Setting(sp)))
        .AddSingleton(sp => new ResultsTableStore(TargetSettings.Results(Setting(sp), HostStorage(Setting(sp)))))
        .AddSingleton(sp => new TargetCleaner(sp.GetRequiredService<IReadOnlyList<StorageTarget>>()))
        .AddSingleton(sp => Prices(Setting(sp)))
        .AddSingleton(sp => new BenchmarkActivities(sp.GetRequiredService<IReadOnlyList<StorageTarget>>(), sp.GetRequiredService<ResultsTableStore>(),
            sp.GetRequiredService<TimeProvider>(), Telemetry(Setting(sp)), loggers: sp.GetRequiredService<ILoggerFactory>()));

    /// <summary>App settings arrive as configuration (environment variables) in the worker.</summary>
    public static Func<string, string?> Setting(IServiceProvider sp)
    {
        var configuration = sp.GetRequiredService<IConfiguration>();
        return name => configuration[name];
    }

    private static IReadOnlyList<StorageTarget> Targets(Func<string, string?> setting) =>
        TargetSettings.Targets(setting) is { Count: > 0 } targets
            ? targets
            : throw new InvalidOperationException($"No benchmark target: set {TargetSettings.TargetConnectionString} (Azurite), or {TargetSettings.TargetTableEndpoints} and/or {TargetSettings.TargetBlobEndpoints}");

    /// <summary>
    /// The host's storage (AzureWebJobsStorage: a connection string locally, service URIs with the managed identity in
    /// Azure): the task hub is there, and so are results, signals and progress unless STORAGEBENCH_RESULTS_* moves them.
    /// Never the target, which carries only the measured traffic (docs/function-app.md).
    /// </summary>
    private static StorageTarget HostStorage(Func<string, string?> setting) =>
        setting("AzureWebJobsStorage") is { Length: > 0 } cs ? StorageTarget.Parse("AzureWebJobsStorage", cs)
        : setting("AzureWebJobsStorage__tableServiceUri") is { Length: > 0 } table && setting("AzureWebJobsStorage__blobServiceUri") is { Length: > 0 } blob
            ? StorageTarget.FromEndpoints(new Uri(table), new Uri(blob))
        : throw new InvalidOperationException("No host storage: set AzureWebJobsStorage (a connection string) or AzureWebJobsStorage__tableServiceUri and __blobServiceUri");

    /// <summary>The cost estimate's price table: the file STORAGEBENCH_PRICES_FILE names (a path the app can read), else the built-in one.</summary>
    private static PriceTable Prices(Func<string, string?> setting)
    {
        var (prices, errors) = PriceTableReader.Resolve(setting);
        return prices ?? throw new InvalidOperationException(
            $"{PriceTableReader.Setting} names a price table that was rejected: {string.Join("; ", errors)}");
    }

    /// <summary>The benchmark's own events; null (skipped) without a connection string.</summary>
    private static TelemetryEmitter? Telemetry(Func<string, string?> setting) =>
        setting("APPLICATIONINSIGHTS_CONNECTION_STRING") is { Length: > 0 } cs ? new TelemetryEmitter(cs, AadCredential(setting("APPLICATIONINSIGHTS_AUTHENTICATION_STRING"))) : null;

    /// <summary>"ClientId=…;Authorization=AAD" (the bicep's form): ingestion with that user-assigned identity, as local auth is off.</summary>
    private static TokenCredential? AadCredential(string? authentication)
    {
        string? mode = null, clientId = null;
        foreach (var part in (authentication ?? "").Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            var kv = part.Split('=', 2, StringSplitOptions.TrimEntries);
            if (kv.Length == 2 && kv[0].Equals("Authorization", StringComparison.OrdinalIgnoreCase))
            {
                mode = kv[1];
            }
            else if (kv.Length == 2 && kv[0].Equals("ClientId", StringComparison.OrdinalIgnoreCase))
            {
                clientId = kv[1];
            }
        }
        return mode?.Equals("AAD", StringComparison.OrdinalIgnoreCase) != true ? null
            : new ManagedIdentityCredential(clientId is null ? ManagedIdentityId.SystemAssigned : ManagedIdentityId.FromUserAssignedClientId(clientId));
    }
}
