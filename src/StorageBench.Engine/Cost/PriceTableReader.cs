using System.Globalization;
using System.Text.Json;
using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Cost;

/// <summary>
/// Reads and checks a price table: JSON with // comments, every field required, unknown fields rejected (a typo
/// must not quietly price at a default), each error naming the field, the value and the rule. The file the entry
/// point was given (the CLI's option), else the one STORAGEBENCH_PRICES_FILE names, else the built-in copy of
/// pricing/azure-storage-prices.json.
/// </summary>
public static class PriceTableReader
{
    public const string Setting = "STORAGEBENCH_PRICES_FILE";
    public const string BuiltInName = "pricing/azure-storage-prices.json (built in)";

    private static readonly JsonDocumentOptions DocumentOptions = new() { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true };

    private static readonly Lazy<PriceTable> BuiltInTable = new(() =>
    {
        using var stream = typeof(PriceTableReader).Assembly.GetManifestResourceStream("azure-storage-prices.json")!;
        var (table, errors) = Parse(new StreamReader(stream).ReadToEnd(), BuiltInName);
        return table ?? throw new InvalidOperationException("the built-in price table is invalid: " + string.Join("; ", errors));
    });

    /// <summary>The repository's pricing/azure-storage-prices.json, compiled in.</summary>
    public static PriceTable BuiltIn => BuiltInTable.Value;

    /// <summary>What each field is; also the rule's wording for a missing or bad one.</summary>
    private static readonly (string Field, string What)[] Prices =
    [
        ("tableTransactionsPer10k", "the price of 10,000 table transactions"),
        ("tableStoragePerGbMonth", "the price of 1 GB of table data for a month"),
        ("blobWriteOperationsPer10k", "the price of 10,000 blob write operations (Put Block, Put Block List)"),
        ("blobReadOperationsPer10k", "the price of 10,000 blob read operations (Get Blob)"),
        ("blobListAndCreateContainerOperationsPer10k", "the price of 10,000 List Blobs or Create Container operations"),
        ("blobOtherOperationsPer10k", "the price of 10,000 other blob operations (Get Container Properties)"),
        ("blobStoragePerGbMonth", "the price of 1 GB of hot blob data for a month"),
    ];

    private const string FlexField = "functionsFlexConsumptionOnDemandPerGbSecond";

    private static readonly string[] Texts = ["currency", "region", "readOn", "source", "entityGroupTransactionBilling"];

    /// <summary>The table a host's settings name: the file the <see cref="Setting"/> setting names, else <see cref="BuiltIn"/>.</summary>
    public static (PriceTable? Table, IReadOnlyList<ValidationError> Errors) Resolve(Func<string, string?> setting) =>
        setting(Setting) is { Length: > 0 } s ? Load(s.Trim(), Setting) : (BuiltIn, []);

    /// <summary>
    /// The table to use: <paramref name="path"/> if the entry point was given one (<paramref name="given"/>, its option as the
    /// errors name it), else as <see cref="Resolve(Func{string, string?})"/>.
    /// </summary>
    public static (PriceTable? Table, IReadOnlyList<ValidationError> Errors) Resolve(string? path, string given, Func<string, string?> setting) =>
        path is not null ? Load(path, given) : Resolve(setting);

    /// <summary>Reads a price table file; <paramref name="given"/> says which option or setting named it.</summary>
    public static (PriceTable? Table, IReadOnlyList<ValidationError> Errors) Load(string path, string given)
    {
        string json;
        try
        {
            json = File.ReadAllText(path);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            return (null, [new ValidationError(given, $"\"{path}\"", "cannot be read: " + ex.Message)]);
        }
        return Parse(json, path);
    }

    /// <summary>Parses and checks; the table or every broken rule (never both).</summary>
    public static (PriceTable? Table, IReadOnlyList<ValidationError> Errors) Parse(string json, string file)
    {
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(json, DocumentOptions);
        }
        catch (JsonException ex)
        {
            return (null, [new ValidationError("(price table)", "(json)",
                $"is not valid JSON: line {(ex.LineNumber ?? 0) + 1}, column {(ex.BytePositionInLine ?? 0) + 1}")]);
        }
        using (document)
        {
            var root = document.RootElement;
            if (root.ValueKind != JsonValueKind.Object)
            {
                return (null, [new ValidationError("(price table)", root.GetRawText(), "must be a JSON object of prices (see pricing/azure-storage-prices.json)")]);
            }
            var errors = new List<ValidationError>();
            var known = Prices.Select(p => p.Field).Concat(Texts).Append(FlexField).ToList();
            foreach (var property in root.EnumerateObject().Where(p => !known.Contains(p.Name, StringComparer.Ordinal)))
            {
                errors.Add(new ValidationError(property.Name, "(unknown field)", $"is not a field of a price table; the fields are {string.Join(", ", known)}"));
            }
            var prices = Prices.ToDictionary(p => p.Field, p => Price(root, p.Field, p.What, errors));
            // Optional, so price tables written before the plan command existed still load.
            double? flex = root.TryGetProperty(FlexField, out _) ? Price(root, FlexField, "the price of one GB-second of Flex Consumption on-demand execution", errors) : null;
            string currency = Text(root, "currency", "an ISO 4217 currency code of three capital letters, e.g. USD", errors,
                v => v.Length == 3 && v.All(char.IsAsciiLetterUpper));
            string region = Text(root, "region", "the region the prices are for (or say that the source names none)", errors, v => v.Trim().Length > 0);
            string readOn = Text(root, "readOn", "the date the prices were read, as yyyy-MM-dd, not in the future", errors, IsPastDate);
            string source = Text(root, "source", "where the figures came from (page names or URLs, with their dates)", errors, v => v.Trim().Length > 0);
            string billing = Text(root, "entityGroupTransactionBilling",
                $"\"{PriceTable.PerBatch}\" (an entity group transaction is one transaction, as Azure documents) or \"{PriceTable.PerEntity}\" (one per entity in it)",
                errors, v => v is PriceTable.PerBatch or PriceTable.PerEntity);
            if (errors.Count > 0)
            {
                return (null, errors);
            }
            return (new PriceTable
            {
                File = file,
                Currency = currency,
                Region = region,
                ReadOn = readOn,
                Source = source,
                TableTransactionsPer10k = prices["tableTransactionsPer10k"],
                TableStoragePerGbMonth = prices["tableStoragePerGbMonth"],
                BlobWriteOperationsPer10k = prices["blobWriteOperationsPer10k"],
                BlobReadOperationsPer10k = prices["blobReadOperationsPer10k"],
                BlobListAndCreateContainerOperationsPer10k = prices["blobListAndCreateContainerOperationsPer10k"],
                BlobOtherOperationsPer10k = prices["blobOtherOperationsPer10k"],
                BlobStoragePerGbMonth = prices["blobStoragePerGbMonth"],
                EntityGroupTransactionBilling = billing,
                FunctionsFlexConsumptionOnDemandPerGbSecond = flex,
            }, []);
        }
    }

    private static double Price(JsonElement root, string field, string what, List<ValidationError> errors)
    {
        string rule = $"a number of 0 or more: {what}, in the table's currency";
        if (!root.TryGetProperty(field, out var value))
        {
            errors.Add(new ValidationError(field, "(missing)", "is required: " + rule));
            return 0;
        }
        if (value.ValueKind != JsonValueKind.Number || !value.TryGetDouble(out double price) || !double.IsFinite(price) || price < 0)
        {
            errors.Add(new ValidationError(field, value.GetRawText(), "must be " + rule));
            return 0;
        }
        return price;
    }

    private static string Text(JsonElement root, string field, string what, List<ValidationError> errors, Func<string, bool> valid)
    {
        if (!root.TryGetProperty(field, out var value))
        {
            errors.Add(new ValidationError(field, "(missing)", "is required: " + what));
            return "";
        }
        if (value.ValueKind != JsonValueKind.String || !valid(value.GetString()!))
        {
            errors.Add(new ValidationError(field, value.GetRawText(), "must be " + what));
            return "";
        }
        return value.GetString()!;
    }

    private static bool IsPastDate(string text) =>
        DateOnly.TryParseExact(text, "yyyy-MM-dd", CultureInfo.InvariantCulture, DateTimeStyles.None, out var date)
        && date <= DateOnly.FromDateTime(DateTime.UtcNow.AddDays(1));
}
