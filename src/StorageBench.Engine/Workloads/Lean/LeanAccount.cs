namespace StorageBench.Engine.Workloads.Lean;

/// <summary>
/// The account as the lean driver signs for it: name, endpoints, and the shared key (connection strings
/// with AccountKey, and Azurite's development account) or a SAS (its query is appended to every request).
/// Without either, requests carry a managed-identity bearer token.
/// </summary>
/// <param name="TableEndpoint">Null for a target without tables (a premium block blob account); the table driver is then never made.</param>
public sealed record LeanAccount(string Name, Uri? TableEndpoint, Uri? BlobEndpoint, byte[]? Key, string? Sas)
{
    /// <summary>The x-ms-version the lean driver's blob requests carry (and sign): the SDK's, or an emulator's newest (<see cref="Targets.EmulatorVersions"/>).</summary>
    public string BlobVersion { get; init; } = LeanBlob.ServiceVersion;

    /// <summary>Endpoints and name as the SDK clients resolved them, the secret from the connection string.</summary>
    public static LeanAccount From(string? connectionString, string accountName, Uri? tableEndpoint, Uri? blobEndpoint)
    {
        var values = (connectionString ?? "").Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select(p => p.Split('=', 2)).Where(p => p.Length == 2)
            .GroupBy(p => p[0], StringComparer.OrdinalIgnoreCase).ToDictionary(g => g.Key, g => g.Last()[1], StringComparer.OrdinalIgnoreCase);
        string? key = values.GetValueOrDefault("AccountKey")
            ?? (values.TryGetValue("UseDevelopmentStorage", out var dev) && dev.Equals("true", StringComparison.OrdinalIgnoreCase) ? Targets.StorageTarget.DevelopmentAccountKey : null);
        string? sas = values.GetValueOrDefault("SharedAccessSignature")?.TrimStart('?');
        return new(accountName, Trim(tableEndpoint), Trim(blobEndpoint), key is null ? null : Convert.FromBase64String(key), key is null ? sas : null);
    }

    private static Uri? Trim(Uri? endpoint) => endpoint is null ? null : new(endpoint.GetLeftPart(UriPartial.Path).TrimEnd('/'));
}
