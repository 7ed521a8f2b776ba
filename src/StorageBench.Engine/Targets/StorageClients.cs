using Azure.Core;
using Azure.Core.Pipeline;
using Azure.Data.Tables;
using Azure.Identity;
using Azure.Storage.Blobs;

namespace StorageBench.Engine.Targets;

/// <summary>A call needed a service the target has no endpoint for; the message names the service and the setting.</summary>
public sealed class TargetServiceMissingException(string message) : InvalidOperationException(message);

/// <summary>Table and blob clients sharing one HTTP handler configured from the spec's client settings.</summary>
public sealed class StorageClients : IDisposable
{
    private static readonly TokenCredential Credential = new DefaultAzureCredential();
    private readonly HttpClient _http;
    private readonly Lazy<LeanTransport> _lean;

    private readonly StorageTarget _target;
    private readonly TableServiceClient? _tables;
    private readonly BlobServiceClient? _blobs;

    /// <param name="sideCalls">Clients for the calls outside the measured path (creation, verification, cleanup): SDK retries on, but
    /// short (<see cref="SideCallRetries"/>), so a target that has died costs a run seconds, not the SDK's default half minute per call.</param>
    internal StorageClients(StorageTarget target, ClientSettings settings, WireCounter? sideRequests = null, bool sideCalls = false)
    {
        _target = target;
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
        Configure(tableOptions.Retry, settings, timeout, sideCalls);
        tableOptions.AddPolicy(TableWire, HttpPipelinePosition.PerRetry);
        // An emulator accepts only the service versions it knows: Azurite 3.37.0 refuses the SDK's 2026-10-06 unless started
        // with --skipApiVersionCheck, so an emulator target is sent the newest version it accepts.
        bool emulator = target.Kind == "Azurite";
        var blobOptions = emulator ? new BlobClientOptions(EmulatorVersions.BlobSdk) { Transport = transport } : new BlobClientOptions { Transport = transport };
        Configure(blobOptions.Retry, settings, timeout, sideCalls);
        blobOptions.AddPolicy(BlobWire, HttpPipelinePosition.PerRetry);
        if (sideRequests is not null)
        {
            // Per retry: every request that goes on the wire, as the target sees it.
            tableOptions.AddPolicy(sideRequests, HttpPipelinePosition.PerRetry);
            blobOptions.AddPolicy(sideRequests, HttpPipelinePosition.PerRetry);
        }

        // Only the services the target has: a client for another would resolve an endpoint the user never named.
        bool table = target.Has(TargetService.Table), blob = target.Has(TargetService.Blob);
        if (target.ConnectionString is { } cs)
        {
            _tables = table ? new TableServiceClient(cs, tableOptions) : null;
            _blobs = blob ? new BlobServiceClient(cs, blobOptions) : null;
        }
        else
        {
            _tables = target.TableEndpoint is { } t ? new TableServiceClient(t, target.Credential ?? Credential, tableOptions) : null;
            _blobs = target.BlobEndpoint is { } b ? new BlobServiceClient(b, target.Credential ?? Credential, blobOptions) : null;
        }
        _lean = new(() => new LeanTransport(settings, LeanAccount.From(target.ConnectionString, _tables?.AccountName ?? _blobs?.AccountName ?? "", _tables?.Uri, _blobs?.Uri) with
        {
            BlobVersion = emulator ? EmulatorVersions.Blob : LeanBlob.ServiceVersion,
        }, target.Credential ?? Credential));
    }

    /// <summary>The lean driver's transport (<c>client.driver: "lean"</c>), made on first use; it counts on TableWire/BlobWire too.</summary>
    public LeanTransport Lean => _lean.Value;

    /// <summary>The table service; a target without a table endpoint throws, naming the setting (preflight refuses such a run first).</summary>
    public TableServiceClient Tables => _tables ?? throw Missing(TargetService.Table);

    /// <summary>The blob service; a target without a blob endpoint throws, naming the setting.</summary>
    public BlobServiceClient Blobs => _blobs ?? throw Missing(TargetService.Blob);

    /// <summary>Whether the target has the service: what a call outside the measured path checks before it touches it.</summary>
    /// <summary>The account's name (devstoreaccount1 on Azurite), as its endpoint or connection string gives it.</summary>
    public string AccountName => _tables?.AccountName ?? _blobs?.AccountName ?? "";

    public bool Has(TargetService service) => (service == TargetService.Table ? _tables : (object?)_blobs) is not null;

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

    private TargetServiceMissingException Missing(TargetService service) =>
        new(_target.MissingEndpoint(service, "this", $"use an account with {(service == TargetService.Table ? "tables" : "blobs")}")!);


    /// <summary>A side call's retries: 3, waiting 0.5 to 4 s (the storage SDK's default of 5 from 0.8 s up took about 25 s a call
    /// against a dead endpoint, and a run that lost its target makes two such calls per step).</summary>
    public const int SideCallRetries = 3;

    private static void Configure(RetryOptions retry, ClientSettings settings, TimeSpan timeout, bool sideCalls)
    {
        retry.NetworkTimeout = timeout;
        if (sideCalls)
        {
            retry.MaxRetries = SideCallRetries;
            retry.Delay = TimeSpan.FromSeconds(0.5);
            retry.MaxDelay = TimeSpan.FromSeconds(4);
        }
        else if (!settings.SdkRetries)
        {
            retry.MaxRetries = 0;
        }
    }
}
