using Azure.Storage.Blobs;

namespace StorageBench.Engine.Targets;

/// <summary>
/// The newest service versions the pinned Azurite (package.json: azurite 3.37.0) accepts: its ValidAPIVersions list
/// tops out at 2026-06-06 for blobs and tables, while Azure.Storage.Blobs 12.30 sends 2026-10-06 by default. Sent to
/// emulator targets (<see cref="StorageTarget.Kind"/> "Azurite") by both drivers, so an Azurite started without
/// --skipApiVersionCheck works. Azure.Data.Tables 12.13 sends 2020-12-06, which every Azurite accepts.
/// </summary>
public static class EmulatorVersions
{
    public const string Blob = "2026-06-06";

    public const BlobClientOptions.ServiceVersion BlobSdk = BlobClientOptions.ServiceVersion.V2026_06_06;
}
