using Azure.Core;
using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Targets;

/// <summary>
/// The storage account under test: a connection string (Azurite, local) or endpoints reached with
/// Azure.Identity (managed identity in Azure). Both paths build clients the same way
/// (<see cref="StorageClients"/>); a user's connection string is checked first (StorageTarget.ConnectionString.cs).
/// </summary>
public sealed partial record StorageTarget(string? ConnectionString, Uri? TableEndpoint = null, Uri? BlobEndpoint = null)
{
    public static StorageTarget FromConnectionString(string connectionString) => new(connectionString);

    public static StorageTarget FromEndpoints(Uri tableEndpoint, Uri blobEndpoint) => new(null, tableEndpoint, blobEndpoint);

    /// <summary>The credential for endpoints without a connection string; null: DefaultAzureCredential (managed identity in Azure).</summary>
    public TokenCredential? Credential { get; init; }

    /// <summary>"Azurite" (the development account, or an emulator on this machine) or "AzureStorage": every summary says what it measured.</summary>
    public string Kind =>
        ConnectionString is { } cs && new[] { "devstoreaccount1", "UseDevelopmentStorage=true", "//127.0.0.1:", "//localhost:" }.Any(m => cs.Contains(m, StringComparison.OrdinalIgnoreCase))
            ? "Azurite"
            : "AzureStorage";

    public StorageClients CreateClients(ClientSettings settings) => new(this, settings);

    /// <summary>Clients for the calls outside the measured path: target creation, verification, cleanup (short SDK retries).</summary>
    public StorageClients CreateSideCallClients() => new(this, new ClientSettings(), sideCalls: true);
}
