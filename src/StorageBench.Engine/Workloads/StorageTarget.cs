using Azure.Core;
using Azure.Core.Pipeline;
using Azure.Data.Tables;
using Azure.Identity;
using Azure.Storage.Blobs;
using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// The storage account under test: a connection string (Azurite, local) or endpoints reached with
/// Azure.Identity (managed identity in Azure). Both paths build clients the same way.
/// </summary>
public sealed record StorageTarget(string? ConnectionString, Uri? TableEndpoint = null, Uri? BlobEndpoint = null)
{
    public static StorageTarget FromConnectionString(string connectionString) => new(connectionString);

    public static StorageTarget FromEndpoints(Uri tableEndpoint, Uri blobEndpoint) => new(null, tableEndpoint, blobEndpoint);

    /// <summary>"Azurite" or "AzureStorage": every summary says what it measured.</summary>
    public string Kind =>
        ConnectionString is { } cs && (cs.Contains("devstoreaccount1", StringComparison.OrdinalIgnoreCase) || cs.Contains("UseDevelopmentStorage=true", StringComparison.OrdinalIgnoreCase))
            ? "Azurite"
            : "AzureStorage";

    public StorageClients CreateClients(ClientSettings settings) => new(this, settings);
}

/// <summary>Table and blob clients sharing one HTTP handler configured from the spec's client settings.</summary>
public sealed class StorageClients : IDisposable
{
    private static readonly TokenCredential Credential = new DefaultAzureCredential();
    private readonly HttpClient _http;

    internal StorageClients(StorageTarget target, ClientSettings settings)
    {
        _http = new HttpClient(new SocketsHttpHandler
        {
            MaxConnectionsPerServer = settings.MaxConnectionsPerServer,
            // Zero lifetime: every request opens a fresh connection (pooling off).
            PooledConnectionLifetime = settings.ConnectionPooling ? TimeSpan.FromMinutes(5) : TimeSpan.Zero,
        })
        {
            // The SDK's NetworkTimeout governs each request; this must not cut in first.
            Timeout = Timeout.InfiniteTimeSpan,
        };
        _http.DefaultRequestHeaders.ExpectContinue = settings.Expect100Continue;
        var transport = new HttpClientTransport(_http);
        var timeout = TimeSpan.FromSeconds(settings.RequestTimeoutSeconds);

        var tableOptions = new TableClientOptions { Transport = transport };
        Configure(tableOptions.Retry, settings, timeout);
        var blobOptions = new BlobClientOptions { Transport = transport };
        Configure(blobOptions.Retry, settings, timeout);

        if (target.ConnectionString is { } cs)
        {
            Tables = new TableServiceClient(cs, tableOptions);
            Blobs = new BlobServiceClient(cs, blobOptions);
        }
        else
        {
            Tables = new TableServiceClient(target.TableEndpoint ?? throw new ArgumentException("TableEndpoint is required without a connection string"), Credential, tableOptions);
            Blobs = new BlobServiceClient(target.BlobEndpoint ?? throw new ArgumentException("BlobEndpoint is required without a connection string"), Credential, blobOptions);
        }
    }

    public TableServiceClient Tables { get; }

    public BlobServiceClient Blobs { get; }

    public void Dispose() => _http.Dispose();

    private static void Configure(RetryOptions retry, ClientSettings settings, TimeSpan timeout)
    {
        retry.NetworkTimeout = timeout;
        if (!settings.SdkRetries)
        {
            retry.MaxRetries = 0;
        }
    }
}
