using System.Globalization;

namespace StorageBench.Engine.Cost;

/// <summary>
/// Reads and checks a price table strictly (<see cref="StrictJsonObject"/>): JSON with // comments, every field required,
/// unknown fields rejected (a typo must not quietly price at a default), each error naming the field, the value and the rule. The file
/// the entry point was given (the CLI's option), else the one STORAGEBENCH_PRICES_FILE names, else the built-in copy of
/// pricing/azure-storage-prices.json.
/// </summary>
public static class PriceTableReader
{
    public const string Setting = "STORAGEBENCH_PRICES_FILE";
    public const string BuiltInName = "pricing/azure-storage-prices.json (built in)";

    private static readonly Lazy<PriceTable> BuiltInTable = new(() =>
    {
        using var stream = typeof(PriceTableReader).Assembly.GetManifestResourceStream("azure-storage-prices.json")!;
        var (table, errors) = Parse(new StreamReader(stream).ReadToEnd(), BuiltInName);
        return table ?? throw new InvalidOperationException("the built-in price table is invalid: " + string.Join("; ", errors));
    });

    /// <summary>The repository's pricing/azure-storage-prices.json, compiled in.</summary>
    public static PriceTable BuiltIn => BuiltInTable.Value;

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

    /// <summary>Parses and checks (<see cref="StrictJsonObject"/>); the table or every broken rule (never both).</summary>
    public static (PriceTable? Table, IReadOnlyList<ValidationError> Errors) Parse(string json, string file)
    {
        var (root, notAnObject) = StrictJsonObject.Parse(json, "a price table", "(price table)", "must be a JSON object of prices (see pricing/azure-storage-prices.json)");
        if (root is null)
        {
            return (null, [notAnObject!]);
        }
        // Each price's rule says what it is.
        static string Rule(string what) => $"a number of 0 or more: {what}, in the table's currency";
        double Price(string field, string what) => root.Number(field, Rule(what), v => v >= 0);
        var table = new PriceTable
        {
            File = file,
            Currency = root.Text("currency", "an ISO 4217 currency code of three capital letters, e.g. USD", v => v.Length == 3 && v.All(char.IsAsciiLetterUpper)),
            Region = root.Text("region", "the region the prices are for (or say that the source names none)", v => v.Trim().Length > 0),
            ReadOn = root.Text("readOn", "the date the prices were read, as yyyy-MM-dd, not in the future", IsPastDate),
            Source = root.Text("source", "where the figures came from (page names or URLs, with their dates)", v => v.Trim().Length > 0),
            TableTransactionsPer10k = Price("tableTransactionsPer10k", "the price of 10,000 table transactions"),
            TableStoragePerGbMonth = Price("tableStoragePerGbMonth", "the price of 1 GB of table data for a month"),
            BlobWriteOperationsPer10k = Price("blobWriteOperationsPer10k", "the price of 10,000 blob write operations (Put Block, Put Block List)"),
            BlobReadOperationsPer10k = Price("blobReadOperationsPer10k", "the price of 10,000 blob read operations (Get Blob)"),
            BlobListAndCreateContainerOperationsPer10k = Price("blobListAndCreateContainerOperationsPer10k", "the price of 10,000 List Blobs or Create Container operations"),
            BlobOtherOperationsPer10k = Price("blobOtherOperationsPer10k", "the price of 10,000 other blob operations (Get Container Properties)"),
            BlobStoragePerGbMonth = Price("blobStoragePerGbMonth", "the price of 1 GB of hot blob data for a month"),
            EntityGroupTransactionBilling = root.Text("entityGroupTransactionBilling",
                $"\"{PriceTable.PerBatch}\" (an entity group transaction is one transaction, as Azure documents) or \"{PriceTable.PerEntity}\" (one per entity in it)",
                v => v is PriceTable.PerBatch or PriceTable.PerEntity),
            // Optional, so price tables written before the plan command existed still load.
            FunctionsFlexConsumptionOnDemandPerGbSecond = root.OptionalNumber("functionsFlexConsumptionOnDemandPerGbSecond",
                Rule("the price of one GB-second of Flex Consumption on-demand execution"), v => v >= 0),
            DataTransferOutPerGb = root.OptionalNumber("dataTransferOutPerGb", Rule("the price of 1 GB read out of the account to another region (egress)"), v => v >= 0),
        };
        return root.Errors() is { Count: > 0 } errors ? (null, errors) : (table, []);
    }

    private static bool IsPastDate(string text) =>
        DateOnly.TryParseExact(text, "yyyy-MM-dd", CultureInfo.InvariantCulture, DateTimeStyles.None, out var date)
        && date <= DateOnly.FromDateTime(DateTime.UtcNow.AddDays(1));
}
