using System.Diagnostics;

namespace StorageBench.Cli;

/// <summary>
/// The engine's own storage for local runs: task hubs (queues, History and Instances tables, lease blobs), cancel signals,
/// progress rows and, unless STORAGEBENCH_RESULTS_* says otherwise, results. Never the account under test, so a target
/// may be blob-only, may throttle or die, and the engine's polling is not measured with it (docs/architecture.md).
/// </summary>
public sealed class ControlPlane : IDisposable
{
    private readonly HubAzurite? _local;

    private ControlPlane(StorageTarget store, HubAzurite? local, string where)
    {
        Store = store;
        _local = local;
        Where = where;
    }

    /// <summary>The account the task hubs, signals and progress rows live in.</summary>
    public StorageTarget Store { get; }

    /// <summary>True when an account was named (--hub-connection-string or the setting); false for the hub store's own Azurite.</summary>
    public bool IsGiven => _local is null;

    /// <summary>Where that is, in words, for messages.</summary>
    public string Where { get; }

    /// <summary>The results tables: the STORAGEBENCH_RESULTS_* setting, else this store.</summary>
    public StorageTarget Results => TargetSettings.Results(Environment.GetEnvironmentVariable, Store);

    /// <summary>
    /// The accounts a run checks before it starts, each with what it is in words, so a dead one is never taken for the target:
    /// a named control-plane account, and a results store apart from the control plane. Not the hub store's own Azurite: it
    /// was just started or joined, so it answers.
    /// </summary>
    public IEnumerable<(StorageTarget Account, string Role)> Preflights()
    {
        if (IsGiven)
        {
            yield return (Store, $"the control plane (task hubs, cancel signals, progress{(Results == Store ? ", results" : "")}; {Where}), not the target");
        }
        if (Results != Store)
        {
            yield return (Results, $"the results store (STORAGEBENCH_RESULTS_*), not the target");
        }
    }

    /// <summary>--hub-connection-string, else STORAGEBENCH_HUB_CONNECTION_STRING; null when neither names one (or, with <paramref name="error"/>, one is malformed).</summary>
    public static ControlPlane? Given(string? hubConnectionString, out string? error)
    {
        error = null;
        try
        {
            var store = hubConnectionString is not null ? StorageTarget.Parse("--hub-connection-string", hubConnectionString) : TargetSettings.Hub(Environment.GetEnvironmentVariable);
            return store is null ? null : new ControlPlane(store, null, hubConnectionString is not null ? "--hub-connection-string" : TargetSettings.HubConnectionString);
        }
        catch (ArgumentException ex)
        {
            error = ex.Message;
            return null;
        }
    }

    /// <summary>The hub store's own Azurite (started when no other process runs it), which this process holds until disposed.</summary>
    public static async Task<ControlPlane> LocalAsync(TextWriter stdout, CancellationToken ct)
    {
        var took = Stopwatch.StartNew();
        var local = await HubAzurite.OpenAsync(ct).ConfigureAwait(false);
        if (local.Notice is { } notice)
        {
            await stdout.WriteLineAsync("Hub store: " + notice).ConfigureAwait(false);
        }
        if (local.Started)
        {
            // Two lines within 120 columns: the folder is a long path.
            await stdout.WriteLineAsync($"Hub store: Azurite on disk in {HubAzurite.Folder} (started in {took.Elapsed.TotalSeconds:0.0} s);\n" +
                "  task hubs, cancel signals, progress and results live there, not in the target").ConfigureAwait(false);
        }
        return new ControlPlane(StorageTarget.FromConnectionString(local.ConnectionString), local, $"the hub store in {HubAzurite.Folder}");
    }

    public void Dispose() => _local?.Dispose();
}
