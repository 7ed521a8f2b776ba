using Azure.Core;
using Azure.Core.Pipeline;
using Azure.Data.Tables;
using Azure.Identity;
using Azure.Storage.Blobs;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads.Lean;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// The storage account under test: a connection string (Azurite, local) or endpoints reached with
/// Azure.Identity (managed identity in Azure). Both paths build clients the same way.
/// </summary>
public sealed record StorageTarget(string? ConnectionString, Uri? TableEndpoint = null, Uri? BlobEndpoint = null)
{
    public static StorageTarget FromConnectionString(string connectionString) => new(connectionString);

    private static readonly string[] SecretKeys = ["AccountKey", "SharedAccessSignature"];

    /// <summary>
    /// A connection string a user gave, checked before anything uses it: a bad one is an error naming
    /// the setting, the string with its secrets hidden, and the rule.
    /// </summary>
    public static StorageTarget Parse(string setting, string connectionString)
    {
        string? rule = ConnectionStringRule(connectionString.Trim());
        return rule is null ? new(connectionString.Trim()) : throw new ArgumentException($"{setting}: \"{Redact(connectionString)}\" {rule}");
    }

    /// <summary>The connection string with its key and SAS token replaced by ***: safe to print.</summary>
    public static string Redact(string connectionString) =>
        string.Join(';', connectionString.Split(';').Select(part =>
            part.Split('=', 2) is [var name, _] && SecretKeys.Contains(name.Trim(), StringComparer.OrdinalIgnoreCase) ? name + "=***" : part));

    private static string? ConnectionStringRule(string cs)
    {
        if (cs.Length == 0)
        {
            return "is empty: give a storage account connection string (DefaultEndpointsProtocol=https;AccountName=…;AccountKey=…;EndpointSuffix=core.windows.net)";
        }
        var parts = cs.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        if (parts.Any(p => !p.Contains('=')))
        {
            return "is not a connection string: it is Name=Value pairs separated by ; (DefaultEndpointsProtocol=https;AccountName=…;AccountKey=…)";
        }
        var values = parts.Select(p => p.Split('=', 2)).GroupBy(p => p[0].Trim(), StringComparer.OrdinalIgnoreCase).ToDictionary(g => g.Key, g => g.Last()[1].Trim(), StringComparer.OrdinalIgnoreCase);
        if (values.TryGetValue("UseDevelopmentStorage", out var dev) && dev.Equals("true", StringComparison.OrdinalIgnoreCase))
        {
            return null;
        }
        foreach (var (name, value) in values.Where(v => v.Key.EndsWith("Endpoint", StringComparison.OrdinalIgnoreCase)))
        {
            if (!Uri.TryCreate(value, UriKind.Absolute, out var uri) || uri.Scheme is not ("http" or "https"))
            {
                return $"has {name}={value}, which is not an http(s) address";
            }
        }
        if (!values.ContainsKey("SharedAccessSignature"))
        {
            if (!values.ContainsKey("AccountName") || !values.TryGetValue("AccountKey", out var key))
            {
                return "has neither AccountName and AccountKey nor SharedAccessSignature";
            }
            if (!IsBase64(key))
            {
                return "has an AccountKey that is not base64 (copy it whole from the portal: Access keys)";
            }
        }
        try
        {
            _ = new TableServiceClient(cs);
            _ = new BlobServiceClient(cs);
            return null;
        }
        catch (Exception ex) when (ex is FormatException or ArgumentException or InvalidOperationException)
        {
            return "is not accepted by the Azure SDK: " + ex.Message;
        }
    }

    private static bool IsBase64(string text)
    {
        Span<byte> bytes = stackalloc byte[256];
        return text.Length is > 0 and <= 340 && Convert.TryFromBase64String(text, bytes, out _);
    }

    public static StorageTarget FromEndpoints(Uri tableEndpoint, Uri blobEndpoint) => new(null, tableEndpoint, blobEndpoint);

    /// <summary>The credential for endpoints without a connection string; null: DefaultAzureCredential (managed identity in Azure).</summary>
    public TokenCredential? Credential { get; init; }

    /// <summary>"Azurite" (the development account, or an emulator on this machine) or "AzureStorage": every summary says what it measured.</summary>
    public string Kind =>
        ConnectionString is { } cs && new[] { "devstoreaccount1", "UseDevelopmentStorage=true", "//127.0.0.1:", "//localhost:" }.Any(m => cs.Contains(m, StringComparison.OrdinalIgnoreCase))
            ? "Azurite"
            : "AzureStorage";

    public StorageClients CreateClients(ClientSettings settings) => new(this, settings);
}

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
        var blobOptions = new BlobClientOptions { Transport = transport };
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
        _lean = new(() => new LeanTransport(settings, LeanAccount.From(target.ConnectionString, Tables.AccountName, Tables.Uri, Blobs.Uri), target.Credential ?? Credential));
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
