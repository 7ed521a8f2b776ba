using Azure.Core;

namespace StorageBench.Engine.Targets;

/// <summary>A storage service of an account that a workload (or the results table) uses.</summary>
public enum TargetService
{
    Table,
    Blob,
}

/// <summary>
/// The storage account under test: a connection string (Azurite, local) or endpoints reached with
/// Azure.Identity (managed identity in Azure). Both paths build clients the same way
/// (<see cref="StorageClients"/>); a user's connection string is checked first (StorageTarget.ConnectionString.cs).
/// A target may have only some services (a premium block blob account has no tables): clients are built only for
/// the services it has (<see cref="Has"/>), so nothing ever reaches an endpoint the user did not name.
/// </summary>
public sealed partial record StorageTarget(string? ConnectionString, Uri? TableEndpoint = null, Uri? BlobEndpoint = null)
{
    public static StorageTarget FromConnectionString(string connectionString) => new(connectionString);

    public static StorageTarget FromEndpoints(Uri? tableEndpoint, Uri? blobEndpoint) => new(null, tableEndpoint, blobEndpoint);

    /// <summary>The credential for endpoints without a connection string; null: DefaultAzureCredential (managed identity in Azure).</summary>
    public TokenCredential? Credential { get; init; }

    /// <summary>
    /// Where the user gave it (--connection-string, STORAGEBENCH_TARGET_CONNECTION_STRING, an endpoints setting): what a
    /// refusal names. For endpoints, the setting of the endpoints that were given.
    /// </summary>
    public string Setting { get; init; } = "the connection string";

    /// <summary>"Azurite" (the development account, or an emulator on this machine) or "AzureStorage": every summary says what it measured.</summary>
    public string Kind =>
        ConnectionString is { } cs && new[] { "devstoreaccount1", "UseDevelopmentStorage=true", "//127.0.0.1:", "//localhost:" }.Any(m => cs.Contains(m, StringComparison.OrdinalIgnoreCase))
            ? "Azurite"
            : "AzureStorage";

    /// <summary>
    /// Whether the target has an endpoint for the service. A connection string that names service endpoints
    /// (BlobEndpoint=, TableEndpoint=, …) has exactly those, as a premium block blob account's does; one that names none
    /// (AccountName with EndpointSuffix) or UseDevelopmentStorage=true has every service. The SDK would make up
    /// &lt;account&gt;.table.core.windows.net for a service a string does not name; that is never used.
    /// </summary>
    public bool Has(TargetService service) => ConnectionString is { } cs
        ? NamedEndpoints(cs) is not { Count: > 0 } named || named.Contains(EndpointKey(service), StringComparer.OrdinalIgnoreCase)
        : (service == TargetService.Table ? TableEndpoint : BlobEndpoint) is not null;

    /// <summary>
    /// Why the target cannot serve <paramref name="service"/> for <paramref name="user"/> (a workload, or "the results
    /// table"), in one line ending with what to do about it; null when it has the endpoint.
    /// </summary>
    public string? MissingEndpoint(TargetService service, string user, string otherwise)
    {
        if (Has(service))
        {
            return null;
        }
        string name = service == TargetService.Table ? "table" : "blob";
        if (ConnectionString is { } cs)
        {
            var named = NamedEndpoints(cs);
            return $"{user} needs a {name} endpoint, but {Setting} names none (it has {string.Join(" and ", named)} only): add {EndpointKey(service)}=… or {otherwise}";
        }
        string setting = service == TargetService.Table ? TargetSettings.TargetTableEndpoints : TargetSettings.TargetBlobEndpoints;
        return $"{user} needs a {name} endpoint, but {setting} is not set ({Setting} is): set {setting}, one endpoint per account in the same order, or {otherwise}";
    }

    /// <summary>
    /// Which account and endpoints this is, without its secrets (a rotated key is the same account): the parts of its
    /// connection string, keys hidden, in one order; or its endpoints.
    /// </summary>
    public string Identity => ConnectionString is { } cs
        ? string.Join(';', Redact(cs).Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(p => p.ToLowerInvariant()).Order(StringComparer.Ordinal))
        : $"tableendpoint={TableEndpoint};blobendpoint={BlobEndpoint}".ToLowerInvariant();

    /// <summary>Table and blob clients for the services the target has (<see cref="Has"/>).</summary>
    /// <param name="sideRequests">Also counts every request these clients send, SDK retries included: the calls outside the measured path count on it.</param>
    public StorageClients CreateClients(ClientSettings settings, WireCounter? sideRequests = null) => new(this, settings, sideRequests);

    /// <summary>Clients for the calls outside the measured path: target creation, verification, cleanup (short SDK retries), counted on <paramref name="sideRequests"/>.</summary>
    public StorageClients CreateSideCallClients(WireCounter? sideRequests = null) => new(this, new ClientSettings(), sideRequests, sideCalls: true);

    private static string EndpointKey(TargetService service) => service == TargetService.Table ? "TableEndpoint" : "BlobEndpoint";

    /// <summary>The service endpoints a connection string names, as written (BlobEndpoint, QueueEndpoint, …); empty when it names none.</summary>
    private static List<string> NamedEndpoints(string connectionString)
    {
        var parts = connectionString.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(p => p.Split('=', 2)).ToList();
        if (parts.Any(p => p.Length == 2 && p[0].Equals("UseDevelopmentStorage", StringComparison.OrdinalIgnoreCase) && p[1].Trim().Equals("true", StringComparison.OrdinalIgnoreCase)))
        {
            return [];
        }
        return [.. parts.Where(p => p.Length == 2 && p[1].Trim().Length > 0 && p[0].EndsWith("Endpoint", StringComparison.OrdinalIgnoreCase))
            .Select(p => p[0]).Distinct(StringComparer.OrdinalIgnoreCase)];
    }
}
