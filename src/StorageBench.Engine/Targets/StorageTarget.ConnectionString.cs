using Azure.Data.Tables;
using Azure.Storage.Blobs;

namespace StorageBench.Engine.Targets;

/// <summary>A connection string a user gave: checked before anything uses it, and printed only with its secrets hidden.</summary>
public sealed partial record StorageTarget
{
    /// <summary>The development account's key: published with Azurite, so it is no secret.</summary>
    public const string DevelopmentAccountKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    /// <summary>
    /// A connection string a user gave, checked before anything uses it: a bad one is an error naming
    /// the setting, the string with its secrets hidden, and the rule.
    /// </summary>
    public static StorageTarget Parse(string setting, string connectionString)
    {
        string? rule = ConnectionStringRule(connectionString.Trim());
        return rule is null ? new(connectionString.Trim()) { Setting = setting } : throw new ArgumentException(Redact($"{setting}: \"{connectionString}\" {rule}"));
    }

    /// <summary>
    /// The text with every secret a connection string or a URL can carry replaced by ***: an AccountKey, a
    /// SharedAccessSignature, and the value of each SAS query parameter (sig, and the others that shape a SAS) in a URL.
    /// The one redaction of the tool: whatever prints a connection string, an endpoint or a message that may hold one goes through it.
    /// </summary>
    public static string Redact(string text) => SecretValue().Replace(text, m => m.Groups["name"].Value + "=***");

    /// <summary>True when the connection string carries a key or a SAS that is not the published development key.</summary>
    public static bool HasSecret(string connectionString) =>
        SecretValue().Matches(connectionString).Any(m => !(m.Groups["name"].Value.EndsWith("AccountKey", StringComparison.OrdinalIgnoreCase)
            && m.Value.EndsWith(DevelopmentAccountKey, StringComparison.Ordinal)));

    // A key or SAS part of a connection string (up to its ;), or a SAS parameter of a URL's query (up to & ; # " or space).
    [System.Text.RegularExpressions.GeneratedRegex(@"(?<name>\b(?:AccountKey|SharedAccessSignature))=[^;""\s]*|(?<name>(?<=[?&;])(?:sig|se|st|sp|sv|sr|ss|srt|spr|sip|si|skoid|sktid|skt|ske|sks|skv|saoid|suoid|scid|sdd|ses))=[^&;#""\s]*",
        System.Text.RegularExpressions.RegexOptions.IgnoreCase)]
    private static partial System.Text.RegularExpressions.Regex SecretValue();

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
            // Only the services it names: the SDK would make up an endpoint for the others.
            var target = new StorageTarget(cs);
            if (target.Has(TargetService.Table))
            {
                _ = new TableServiceClient(cs);
            }
            if (target.Has(TargetService.Blob))
            {
                _ = new BlobServiceClient(cs);
            }
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
}
