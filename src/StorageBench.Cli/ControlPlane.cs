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
        var plane = await OpenLocalAsync(ct).ConfigureAwait(false);
        await plane.AnnounceAsync(stdout).ConfigureAwait(false);
        return plane;
    }

    /// <summary>The hub store opened without a word yet: what it has to say waits for <see cref="AnnounceAsync"/> (the run goes ahead).</summary>
    public static async Task<ControlPlane> OpenLocalAsync(CancellationToken ct)
    {
        var took = Stopwatch.StartNew();
        var local = await HubAzurite.OpenAsync(ct).ConfigureAwait(false);
        var lines = new List<string>();
        if (local.Notice is { } notice)
        {
            lines.Add("Hub store: " + notice);
        }
        if (local.Started)
        {
            // Two lines within 120 columns: the folder is a long path.
            lines.Add($"Hub store: Azurite on disk in {HubAzurite.Folder} (started in {took.Elapsed.TotalSeconds:0.0} s);\n" +
                "  task hubs, cancel signals, progress and results live there, not in the target");
        }
        return new ControlPlane(StorageTarget.FromConnectionString(local.ConnectionString), local, $"the hub store in {HubAzurite.Folder}") { _announcement = lines };
    }

    private List<string> _announcement = [];

    /// <summary>Says once what opening the hub store did (started it, made it private); nothing for a given account.</summary>
    public async Task AnnounceAsync(TextWriter stdout)
    {
        foreach (string line in _announcement)
        {
            await stdout.WriteLineAsync(line).ConfigureAwait(false);
        }
        _announcement = [];
    }

    /// <summary>Lets go of a store opened for input that was then refused: one this process started stops again (<see cref="HubAzurite.LetGoUnusedAsync"/>).</summary>
    public async Task LetGoUnusedAsync()
    {
        if (_local is not null)
        {
            await _local.LetGoUnusedAsync().ConfigureAwait(false);
        }
    }

    public void Dispose() => _local?.Dispose();
}
