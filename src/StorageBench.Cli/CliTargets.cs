using System.CommandLine;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Telemetry;

namespace StorageBench.Cli;

/// <summary>
/// What several commands share: the --connection-string and --prices options, and the storage targets, results
/// table, price table and host they resolve to.
/// </summary>
public static class CliTargets
{
    /// <summary>--connection-string, and its --connection-string-file twin (<see cref="SecretOption"/>).</summary>
    public static Option<string?> ConnectionStringOption(string description) => new SecretOption("--connection-string", description);

    /// <summary>--results: the folder the local runs were written under; without it out/, which a first run has not written yet.</summary>
    public static Option<string?> LocalResultsOption(string description) => new("--results") { Description = description + " (default out)", HelpName = "DIR" };

    /// <summary>The error line for a --results folder that is not there (a typo would otherwise list no runs and succeed); null when it is.</summary>
    public static string? MissingResults(string? given) => given is null || Directory.Exists(given) ? null
        : $"--results: \"{given}\" is no directory; give the folder the runs were written under (run --out's parent, default out)";

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
                _ = TargetSettings.ResultsSetting(Environment.GetEnvironmentVariable);
            }
            return targets;
        }
        catch (ArgumentException ex)
        {
            error = ex.Message;
            return [];
        }
    }

    /// <summary>
    /// Where the results table is read: --connection-string, else the STORAGEBENCH_RESULTS_* setting, else
    /// STORAGEBENCH_HUB_CONNECTION_STRING; null (with <paramref name="error"/> when one is malformed) otherwise.
    /// </summary>
    public static StorageTarget? ResultsTarget(string? connectionString, out string? error)
    {
        error = null;
        try
        {
            return connectionString is not null ? StorageTarget.Parse("--connection-string", connectionString)
                : TargetSettings.ResultsSetting(Environment.GetEnvironmentVariable) ?? TargetSettings.Hub(Environment.GetEnvironmentVariable);
        }
        catch (ArgumentException ex)
        {
            error = ex.Message;
            return null;
        }
    }

    /// <summary>
    /// The price table of the cost estimate (--prices, else STORAGEBENCH_PRICES_FILE, else the built-in one); null after
    /// saying why it was rejected, before anything started.
    /// </summary>
    public static async Task<PriceTable?> PricesAsync(string? pricesFile, TextWriter stderr)
    {
        var (prices, errors) = PriceTableReader.Resolve(pricesFile, "--prices", Environment.GetEnvironmentVariable);
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

    public static Option<string?> HubConnectionStringOption() => new SecretOption("--hub-connection-string",
        $"storage account that holds the control plane (task hubs, cancel signals, progress and results), never the account under test " +
            $"(default: the {TargetSettings.HubConnectionString} setting if set, else the hub store's own Azurite, kept on disk in {HubAzurite.FolderSetting} " +
            "or ~/.local/share/storagebench/hub)");

    /// <summary>
    /// Runs <paramref name="body"/> against the resolved targets and the control plane; a bad setting is exit 2. The
    /// control plane is opened (its Azurite started) while the target is resolved and <paramref name="beforeControlPlane"/>
    /// checks it, so a refused target is one line without waiting for the hub store. An Azurite started here for the target
    /// is always stopped, and the hub store is let go.
    /// </summary>
    /// <param name="stdout">Where "Starting Azurite..." goes (TextWriter.Null when only the final line or JSON may be printed).</param>
    /// <param name="beforeControlPlane">Checks the targets; an exit code ends the command there.</param>
    /// <param name="opened">The hub store as the caller began to open it before checking its input (<see cref="EarlyHubStore"/>).</param>
    public static async Task<int> WithTargetsAsync(string? connectionString, string? hubConnectionString, TextWriter stdout, TextWriter stderr,
        Func<IReadOnlyList<StorageTarget>, ControlPlane, Task<int>> body, CancellationToken ct, Func<IReadOnlyList<StorageTarget>, Task<int?>>? beforeControlPlane = null,
        Task<ControlPlane>? opened = null)
    {
        var given = GivenTargets(connectionString, out var badTarget);
        var givenPlane = ControlPlane.Given(hubConnectionString, out var badHub);
        if ((badTarget ?? badHub) is { } bad)
        {
            await stderr.WriteLineAsync("error: " + bad).ConfigureAwait(false);
            return CliApp.UsageError;
        }
        var opening = givenPlane is not null ? Task.FromResult(givenPlane) : opened ?? ControlPlane.OpenLocalAsync(ct);
        AzuriteServer? azurite = null;
        bool planeTaken = false;
        try
        {
            azurite = given.Count > 0 ? null : await StartAzuriteAsync(stdout, ct).ConfigureAwait(false);
            IReadOnlyList<StorageTarget> targets = azurite is null ? given : [StorageTarget.FromConnectionString(azurite.ConnectionString)];
            if (beforeControlPlane is not null && await beforeControlPlane(targets).ConfigureAwait(false) is { } refused)
            {
                return refused;
            }
            planeTaken = true;
            using var plane = await opening.ConfigureAwait(false);
            await plane.AnnounceAsync(stdout).ConfigureAwait(false);
            return await body(targets, plane).ConfigureAwait(false);
        }
        finally
        {
            // A store opened before the call is its opener's to let go.
            if (!planeTaken && opened is null)
            {
                // Not waited for: it is let go whenever it has opened (or at the process's exit, when the kernel drops its lock).
                _ = opening.ContinueWith(t => { if (t.IsCompletedSuccessfully) { t.Result.Dispose(); } else { _ = t.Exception; } }, TaskScheduler.Default);
            }
            if (azurite is not null)
            {
                await azurite.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    /// <summary>Without --connection-string or STORAGEBENCH_TARGET_* settings, the target is a fresh in-memory Azurite.</summary>
    private static async Task<AzuriteServer> StartAzuriteAsync(TextWriter stdout, CancellationToken ct)
    {
        await stdout.WriteLineAsync("Starting Azurite on loopback (in-memory) as the target...").ConfigureAwait(false);
        var azurite = await AzuriteServer.StartAsync(ct).ConfigureAwait(false);
        InterruptNotice.AzuriteStarted();
        await stdout.WriteLineAsync($"Azurite: blob 127.0.0.1:{azurite.BlobPort}, table 127.0.0.1:{azurite.TablePort}").ConfigureAwait(false);
        return azurite;
    }

    /// <summary>Telemetry only when a connection is configured: a local run must not need Azure.</summary>
    public static TelemetryEmitter? Telemetry() =>
        Environment.GetEnvironmentVariable("APPLICATIONINSIGHTS_CONNECTION_STRING") is { Length: > 0 } ai ? new TelemetryEmitter(ai) : null;

    /// <summary>The results tables: the STORAGEBENCH_RESULTS_* setting, else the control plane's store (never the target by default).</summary>
    public static ResultsTableStore ResultsStore(ControlPlane plane) => new(plane.Results);

    /// <summary>--task-hub: the Durable task hub (queues, History and Instances tables, leases) in the control plane's store.</summary>
    /// <remarks>No default value: the command picks (run: a hub of the run's own; otherwise the targets' shared hub, <see cref="TaskHubSettings.SharedHubFor"/>).</remarks>
    public static Option<string?> TaskHubOption(string description)
    {
        var option = new Option<string?>("--task-hub")
        {
            Description = description,
            HelpName = "NAME",
            Validators = { r => { if (r.GetValueOrDefault<string?>() is { } name && !TaskHubSettings.IsValidHubName(name)) { r.AddError($"--task-hub: \"{name}\" {TaskHubSettings.HubNameRule}"); } } },
        };
        return option;
    }

    /// <summary>
    /// The task hub in the control plane's store, with this process as a worker of the benchmark (its activities stop only
    /// when it is disposed), or, without <paramref name="worker"/>, as a client only.
    /// </summary>
    /// <param name="oneRun">The hub is one run's own (<see cref="TaskHubSettings.ForRun"/>), worked by this process alone: one partition.</param>
    public static Task<LocalTaskHub> StartHubAsync(IReadOnlyList<StorageTarget> targets, ControlPlane plane, ResultsTableStore results, string hubName, TelemetryEmitter? telemetry,
        Microsoft.Extensions.Logging.ILoggerFactory? loggers, CancellationToken ct, bool worker = true, int? maxActivities = null, bool oneRun = false)
    {
        var settings = new TaskHubSettings { HubName = hubName, Loggers = loggers };
        settings = oneRun ? settings.ForOneRun() : settings;
        settings = maxActivities is { } max ? settings with { MaxConcurrentActivities = max } : settings;
        return worker ? BenchmarkTaskHub.StartAsync(plane.Store, targets, results, settings, telemetry, loggers, ct: ct) : LocalTaskHub.StartAsync(plane.Store, settings, registry: null, ct);
    }
}
