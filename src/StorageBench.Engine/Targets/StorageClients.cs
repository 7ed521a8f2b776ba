using Azure.Core;
using Azure.Core.Pipeline;
using Azure.Data.Tables;
using Azure.Identity;
using Azure.Storage.Blobs;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads.Lean;

namespace StorageBench.Engine.Targets;

/// <summary>Table and blob clients sharing one HTTP handler configured from the spec's client settings.</summary>
public sealed class StorageClients : IDisposable
{
    private static readonly TokenCredential Credential = new DefaultAzureCredential();
    private readonly HttpClient _http;
    private readonly Lazy<LeanTransport> _lean;

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
        tableOptions.AddPolicy(TableWire, HttpPipelinePosition.PerRetry);
        // An emulator accepts only the service versions it knows: Azurite 3.37.0 refuses the SDK's 2026-10-06 unless started
        // with --skipApiVersionCheck, so an emulator target is sent the newest version it accepts.
        bool emulator = target.Kind == "Azurite";
        var blobOptions = emulator ? new BlobClientOptions(EmulatorVersions.BlobSdk) { Transport = transport } : new BlobClientOptions { Transport = transport };
        Configure(blobOptions.Retry, settings, timeout);
        blobOptions.AddPolicy(BlobWire, HttpPipelinePosition.PerRetry);

        if (target.ConnectionString is { } cs)
        {
            Tables = new TableServiceClient(cs, tableOptions);
            Blobs = new BlobServiceClient(cs, blobOptions);
        }
        else
        {
            Tables = new TableServiceClient(target.TableEndpoint ?? throw new ArgumentException("TableEndpoint is required without a connection string"), target.Credential ?? Credential, tableOptions);
            Blobs = new BlobServiceClient(target.BlobEndpoint ?? throw new ArgumentException("BlobEndpoint is required without a connection string"), target.Credential ?? Credential, blobOptions);
        }
        _lean = new(() => new LeanTransport(settings, LeanAccount.From(target.ConnectionString, Tables.AccountName, Tables.Uri, Blobs.Uri) with
        {
            BlobVersion = emulator ? EmulatorVersions.Blob : LeanBlockUploads.ServiceVersion,
        }, target.Credential ?? Credential));
    }

    /// <summary>The lean driver's transport (<c>client.driver: "lean"</c>), made on first use; it counts on TableWire/BlobWire too.</summary>
    public LeanTransport Lean => _lean.Value;

    public TableServiceClient Tables { get; }

    public BlobServiceClient Blobs { get; }

    /// <summary>Requests the table client sent, SDK retries included: what the service may bill.</summary>
    public WireCounter TableWire { get; } = new();

    /// <summary>Requests the blob client sent, SDK retries included.</summary>
    public WireCounter BlobWire { get; } = new();

    public void Dispose()
    {
        _http.Dispose();
        if (_lean.IsValueCreated)
        {
            _lean.Value.Dispose();
        }
    }

    private static void Configure(RetryOptions retry, ClientSettings settings, TimeSpan timeout)
    {
        retry.NetworkTimeout = timeout;
        if (!settings.SdkRetries)
        {
            retry.MaxRetries = 0;
        }
    }
}
