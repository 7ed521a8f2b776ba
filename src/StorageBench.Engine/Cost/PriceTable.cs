namespace StorageBench.Engine.Cost;

/// <summary>
/// Prices of storage requests and capacity, from one documented file (pricing/azure-storage-prices.json by
/// default; see <see cref="PriceTableReader"/>). Every price is in <see cref="Currency"/>.
/// </summary>
public sealed record PriceTable
{
    public const string PerBatch = "perBatch";
    public const string PerEntity = "perEntity";

    /// <summary>Where the table was read from: a path, or the built-in file.</summary>
    public required string File { get; init; }
    public required string Currency { get; init; }
    public required string Region { get; init; }
    /// <summary>When the figures were read (yyyy-MM-dd).</summary>
    public required string ReadOn { get; init; }
    /// <summary>Where every figure came from, with each page's date.</summary>
    public required string Source { get; init; }
    public required double TableTransactionsPer10k { get; init; }
    public required double TableStoragePerGbMonth { get; init; }
    public required double BlobWriteOperationsPer10k { get; init; }
    public required double BlobReadOperationsPer10k { get; init; }
    public required double BlobListAndCreateContainerOperationsPer10k { get; init; }
    public required double BlobOtherOperationsPer10k { get; init; }
    public required double BlobStoragePerGbMonth { get; init; }
    /// <summary><see cref="PerBatch"/>: an entity group transaction is one transaction; <see cref="PerEntity"/>: one per entity in it.</summary>
    public required string EntityGroupTransactionBilling { get; init; }

    /// <summary>
    /// Optional: the price of one GB-second of Flex Consumption on-demand execution (instance memory × active time), what
    /// <c>storagebench plan</c> prices the Function App's compute with; null when the table has no such line.
    /// </summary>
    public double? FunctionsFlexConsumptionOnDemandPerGbSecond { get; init; }

    /// <summary>
    /// Optional: the price of one GB (10^9 bytes) read out of the account to a driver in another region (what a download's
    /// bytes cost beyond its requests); null when the table has no such line, and then the bytes are shown unpriced.
    /// </summary>
    public double? DataTransferOutPerGb { get; init; }

    /// <summary>The price of 10,000 requests billed as <paramref name="billedAs"/> (<see cref="Cost.BilledAs"/>).</summary>
    public double Per10k(string billedAs) => billedAs switch
    {
        Cost.BilledAs.TableTransaction => TableTransactionsPer10k,
        Cost.BilledAs.BlobWrite => BlobWriteOperationsPer10k,
        Cost.BilledAs.BlobRead => BlobReadOperationsPer10k,
        Cost.BilledAs.BlobListOrCreateContainer => BlobListAndCreateContainerOperationsPer10k,
        Cost.BilledAs.BlobOther => BlobOtherOperationsPer10k,
        Cost.BilledAs.Free => 0,
        // Priced per GB (DataTransferOutPerGb), not per request.
        Cost.BilledAs.DataTransferOut => 0,
        _ => throw new ArgumentException($"no price for requests billed as \"{billedAs}\"", nameof(billedAs)),
    };
}
