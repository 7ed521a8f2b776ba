namespace StorageBench.Engine.Workloads.Lean;

/// <summary>
/// SharedKeyLite for the Table service, which signs only x-ms-date and "/" + account + the path (no query but comp): one
/// HMAC per second and resource, not per request. One per lean table request; its resource is set when its path changes.
/// </summary>
public sealed class TableSharedKeyLite
{
    /// <summary>The service version Azure.Data.Tables sends.</summary>
    public const string ServiceVersion = "2020-12-06";

    /// <summary>The lean table requests' User-Agent: the Azure.Data.Tables version this process loaded.</summary>
    public static readonly string UserAgent = LeanUserAgent.Replacing(typeof(Azure.Data.Tables.TableServiceClient).Assembly);

    private string _signedDate = "", _signedResource = "", _authorization = "";

    public TableSharedKeyLite() => Signer = SignAsync;

    /// <summary>"\n/account/path": what the request signs after the date.</summary>
    public string CanonicalResource { get; set; } = "";

    /// <summary>Signs every attempt: x-ms-date now, then a bearer token or SharedKeyLite (a SAS rides in the URL).</summary>
    public Func<LeanRequest, ValueTask> Signer { get; }

    /// <summary>The $format query parameter the SDK's table client sends on every entity request (minimal metadata).</summary>
    public const string Format = "$format=application%2Fjson%3Bodata%3Dminimalmetadata";

    /// <summary>A table on the lean driver: the account's table endpoint, the table's URL, and the account's SAS to append ("&amp;…", or "").</summary>
    public static (Uri Endpoint, string Url, string Sas) Table(LeanTransport transport, string tableName)
    {
        var account = transport.Account;
        // The slice's SDK table client was made first, and refuses a target without tables by name.
        var endpoint = account.TableEndpoint ?? throw new InvalidOperationException("the lean table driver needs a table endpoint");
        return (endpoint, $"{endpoint}/{tableName}", account.Sas is { } s ? "&" + s : "");
    }

    /// <summary>The headers the SDK's table client sends on every request.</summary>
    public static void SetCommonHeaders(LeanRequest request)
    {
        request.Set("User-Agent", UserAgent);
        request.Set("x-ms-version", ServiceVersion);
        request.Set("DataServiceVersion", "3.0");
        request.Set("x-ms-return-client-request-id", "true");
    }

    private async ValueTask SignAsync(LeanRequest request)
    {
        string date = RequestDate.Now();
        request.Set("x-ms-date", date);
        if (request.Transport.UsesToken)
        {
            request.Set("Authorization", await request.Transport.BearerAsync().ConfigureAwait(false));
        }
        else if (request.Transport.Account.Key is not null)
        {
            if (!ReferenceEquals(date, _signedDate) || !string.Equals(CanonicalResource, _signedResource, StringComparison.Ordinal))
            {
                _authorization = $"SharedKeyLite {request.Transport.Account.Name}:{request.Sign(date + CanonicalResource)}";
                (_signedDate, _signedResource) = (date, CanonicalResource);
            }
            request.Set("Authorization", _authorization);
        }
    }
}
