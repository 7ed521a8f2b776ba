using System.CommandLine;
using StorageBench.Engine.Cost;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Telemetry;
using StorageBench.Engine.Targets;
using StorageBench.TaskHub;

namespace StorageBench.Cli;

/// <summary>
/// What several commands share: the --connection-string and --prices options, and the storage targets, results
/// table, price table and host they resolve to.
/// </summary>
public static class CliTargets
{
    public static Option<string?> ConnectionStringOption(string description) => new("--connection-string") { Description = description, HelpName = "CS" };

    public static Option<string?> PricesOption() => new("--prices")
    {
        Description = "price table of the cost estimate (default: the STORAGEBENCH_PRICES_FILE setting if set, else the built-in pricing/azure-storage-prices.json)",
        HelpName = "FILE",
    };

    /// <summary>The targets --connection-string or the STORAGEBENCH_* settings name, checked (results setting too); empty with an error when one is bad.</summary>
    public static IReadOnlyList<StorageTarget> GivenTargets(string? connectionString, out string? error)
    {
        error = null;
        try
        {
            IReadOnlyList<StorageTarget> targets = connectionString is not null
                ? [StorageTarget.Parse("--connection-string", connectionString)]
                : TargetSettings.Targets(Environment.GetEnvironmentVariable);
            if (targets.Count > 0)
            {
                _ = TargetSettings.Results(Environment.GetEnvironmentVariable, targets[0]);
            }
            return targets;
        }
        catch (ArgumentException ex)
        {
            error = ex.Message;
            return [];
        }
    }

    /// <summary>Where the results table is: --connection-string, else the STORAGEBENCH_* settings; null (with <paramref name="error"/> when they are malformed) otherwise.</summary>
    public static StorageTarget? ResultsTarget(string? connectionString, out string? error) =>
        GivenTargets(connectionString, out error) is not [var first, ..] ? null
            : connectionString is not null ? first : TargetSettings.Results(Environment.GetEnvironmentVariable, first);

    /// <summary>
    /// The price table of the cost estimate (--prices, else STORAGEBENCH_PRICES_FILE, else the built-in one); null after
    /// saying why it was rejected, before anything started.
    /// </summary>
    public static async Task<PriceTable?> PricesAsync(string? pricesFile, TextWriter stderr)
    {
        var (prices, errors) = PriceTableReader.Resolve(pricesFile, Environment.GetEnvironmentVariable);
        if (prices is null)
        {
            string from = pricesFile is not null ? $"{pricesFile} (--prices)"
                : $"{Environment.GetEnvironmentVariable(PriceTableReader.Setting)} ({PriceTableReader.Setting})";
            await stderr.WriteLineAsync($"error: the price table {from} was rejected; nothing was started:").ConfigureAwait(false);
            foreach (var e in errors)
            {
                await stderr.WriteLineAsync("  " + e).ConfigureAwait(false);
            }
        }
        return prices;
    }

    /// <summary>Runs <paramref name="body"/> against the resolved targets; a bad setting is exit 2; an Azurite started here is always stopped.</summary>
    /// <param name="stdout">Where "Starting Azurite..." goes (TextWriter.Null when only the final line or JSON may be printed).</param>
    public static async Task<int> WithTargetsAsync(string? connectionString, TextWriter stdout, TextWriter stderr,
        Func<IReadOnlyList<StorageTarget>, Task<int>> body, CancellationToken ct)
    {
        var (targets, azurite, error) = await ResolveTargetsAsync(connectionString, stdout, ct).ConfigureAwait(false);
        if (targets.Count == 0)
        {
            await stderr.WriteLineAsync("error: " + error).ConfigureAwait(false);
            return CliApp.UsageError;
        }
        await using (azurite)
        {
            return await body(targets).ConfigureAwait(false);
        }
    }

    /// <summary>The targets: --connection-string, else the STORAGEBENCH_TARGET_* settings, else a fresh Azurite (returned for disposal).</summary>
    private static async Task<(IReadOnlyList<StorageTarget> Targets, AzuriteServer? Azurite, string? Error)> ResolveTargetsAsync(string? connectionString, TextWriter stdout, CancellationToken ct)
    {
        var fromSettings = GivenTargets(connectionString, out var bad);
        if (fromSettings.Count > 0 || bad is not null)
        {
            return (fromSettings, null, bad);
        }
        await stdout.WriteLineAsync("Starting Azurite on loopback (in-memory)...").ConfigureAwait(false);
        var azurite = await AzuriteServer.StartAsync(ct).ConfigureAwait(false);
        InterruptNotice.AzuriteStarted();
        await stdout.WriteLineAsync($"Azurite: blob 127.0.0.1:{azurite.BlobPort}, table 127.0.0.1:{azurite.TablePort}").ConfigureAwait(false);
        return ([StorageTarget.FromConnectionString(azurite.ConnectionString)], azurite, null);
    }

    /// <summary>Telemetry only when a connection is configured: a local run must not need Azure.</summary>
    public static TelemetryEmitter? Telemetry() =>
        Environment.GetEnvironmentVariable("APPLICATIONINSIGHTS_CONNECTION_STRING") is { Length: > 0 } ai ? new TelemetryEmitter(ai) : null;

    public static ResultsTableStore ResultsStore(IReadOnlyList<StorageTarget> targets) =>
        new(TargetSettings.Results(Environment.GetEnvironmentVariable, targets[0]));

    /// <summary>--task-hub: the Durable task hub (queues, History and Instances tables, leases) in the results account.</summary>
    public static Option<string> TaskHubOption() => new("--task-hub")
    {
        Description = $"Durable task hub the run's orchestrations go through, in the results account (default {TaskHubSettings.DefaultHubName}: the Function App's too)",
        HelpName = "NAME",
        DefaultValueFactory = _ => TaskHubSettings.DefaultHubName,
        Validators = { r => { if (r.GetValueOrDefault<string>() is { } name && !TaskHubSettings.IsValidHubName(name)) { r.AddError($"--task-hub: \"{name}\" {TaskHubSettings.HubNameRule}"); } } },
    };

    /// <summary>
    /// The task hub in the results account, with this process as a worker of the benchmark (its activities stop only when it
    /// is disposed), or, without <paramref name="worker"/>, as a client only.
    /// </summary>
    public static Task<LocalTaskHub> StartHubAsync(IReadOnlyList<StorageTarget> targets, ResultsTableStore results, string hubName, TelemetryEmitter? telemetry,
        Microsoft.Extensions.Logging.ILoggerFactory? loggers, CancellationToken ct, bool worker = true, int? maxActivities = null)
    {
        var settings = new TaskHubSettings { HubName = hubName, Loggers = loggers };
        settings = maxActivities is { } max ? settings with { MaxConcurrentActivities = max } : settings;
        return worker ? BenchmarkTaskHub.StartAsync(targets, results, settings, telemetry, loggers, ct: ct) : LocalTaskHub.StartAsync(results.Target, settings, registry: null, ct);
    }
}
