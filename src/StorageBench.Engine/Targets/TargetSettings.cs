namespace StorageBench.Engine.Targets;

/// <summary>
/// Where the benchmark writes and where results go, from app settings / environment variables —
/// the same names locally (local.settings.json, the shell) and in Azure (infra/bicep sets them):
/// <list type="bullet">
/// <item>STORAGEBENCH_TARGET_CONNECTION_STRING — a connection string (Azurite, or a key-based account), or</item>
/// <item>STORAGEBENCH_TARGET_TABLE_ENDPOINTS and/or STORAGEBENCH_TARGET_BLOB_ENDPOINTS — endpoints reached with
/// Azure.Identity (the Function App's managed identity); comma-separated lists, one entry per account, same order.
/// Either alone is a target with that service only (a premium block blob account has no tables);</item>
/// <item>STORAGEBENCH_RESULTS_CONNECTION_STRING or STORAGEBENCH_RESULTS_TABLE_ENDPOINT — where the results
/// tables live (default: the control plane's store: the Function App's host storage, the CLI's hub store);</item>
/// <item>STORAGEBENCH_HUB_CONNECTION_STRING — the CLI's control plane (task hubs, signals, progress, results) in an
/// account instead of the hub store's own Azurite.</item>
/// </list>
/// </summary>
public static class TargetSettings
{
    public const string TargetConnectionString = "STORAGEBENCH_TARGET_CONNECTION_STRING";
    public const string TargetTableEndpoints = "STORAGEBENCH_TARGET_TABLE_ENDPOINTS";
    public const string TargetBlobEndpoints = "STORAGEBENCH_TARGET_BLOB_ENDPOINTS";
    public const string ResultsConnectionString = "STORAGEBENCH_RESULTS_CONNECTION_STRING";
    public const string ResultsTableEndpoint = "STORAGEBENCH_RESULTS_TABLE_ENDPOINT";
    public const string HubConnectionString = "STORAGEBENCH_HUB_CONNECTION_STRING";

    /// <summary>
    /// The target accounts (slices are spread over them), or empty when no setting names one. One endpoint list alone
    /// gives targets with that service only (preflight refuses a workload that needs the other); lists of different
    /// lengths are an error naming both settings.
    /// </summary>
    public static IReadOnlyList<StorageTarget> Targets(Func<string, string?> setting)
    {
        if (Value(setting, TargetConnectionString) is { } cs)
        {
            return [StorageTarget.Parse(TargetConnectionString, cs)];
        }
        var (table, blob) = (Value(setting, TargetTableEndpoints), Value(setting, TargetBlobEndpoints));
        if (table is null && blob is null)
        {
            return [];
        }
        if (table is null || blob is null)
        {
            // One service only: what a refusal names is the setting that was given.
            string given = table is null ? TargetBlobEndpoints : TargetTableEndpoints;
            return [.. Uris(given, (table ?? blob)!).Select(uri => StorageTarget.FromEndpoints(table is null ? null : uri, blob is null ? null : uri) with { Setting = given })];
        }
        var (tables, blobs) = (Uris(TargetTableEndpoints, table), Uris(TargetBlobEndpoints, blob));
        if (tables.Count != blobs.Count)
        {
            throw new ArgumentException($"{TargetTableEndpoints} lists {tables.Count} account(s) but {TargetBlobEndpoints} lists {blobs.Count}: one of each per account, same order");
        }
        return [.. tables.Zip(blobs, (t, b) => StorageTarget.FromEndpoints(t, b) with { Setting = $"{TargetTableEndpoints} and {TargetBlobEndpoints}" })];
    }

    /// <summary>Where results go: its own setting, else <paramref name="controlPlane"/> (the store that holds the task hub).</summary>
    public static StorageTarget Results(Func<string, string?> setting, StorageTarget controlPlane) => ResultsSetting(setting) ?? controlPlane;

    /// <summary>The results store its own setting names, checked; null when none is set.</summary>
    public static StorageTarget? ResultsSetting(Func<string, string?> setting) =>
        Value(setting, ResultsConnectionString) is { } cs ? StorageTarget.Parse(ResultsConnectionString, cs)
        // The results store uses tables only.
        : Value(setting, ResultsTableEndpoint) is { } endpoint ? StorageTarget.FromEndpoints(FirstUri(ResultsTableEndpoint, endpoint), null) with { Setting = ResultsTableEndpoint }
        : null;

    /// <summary>The control plane's account STORAGEBENCH_HUB_CONNECTION_STRING names, checked; null when unset.</summary>
    public static StorageTarget? Hub(Func<string, string?> setting) =>
        Value(setting, HubConnectionString) is { } cs ? StorageTarget.Parse(HubConnectionString, cs) : null;

    private static string? Value(Func<string, string?> setting, string name) => setting(name) is { Length: > 0 } v ? v.Trim() : null;

    private static Uri FirstUri(string name, string list) => Uris(name, list)[0];

    private static List<Uri> Uris(string name, string list)
    {
        var items = list.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        return items.Length == 0
            ? throw new ArgumentException(StorageTarget.Redact($"{name}: \"{list}\" lists no endpoint"))
            : [.. items.Select(item => Uri.TryCreate(item, UriKind.Absolute, out var uri) && uri.Scheme is "https" or "http"
                ? uri
                : throw new ArgumentException(StorageTarget.Redact($"{name}: \"{item}\" is not an http(s) endpoint")))];
    }
}
