namespace StorageBench.Engine.Cost;

/// <summary>What a run's storage requests cost at a price table's prices: an estimate, saying what it counts and what it leaves out.</summary>
public sealed record CostEstimate
{
    public required string Note { get; init; }
    public required PricesUsed Prices { get; init; }
    public required IReadOnlyList<WorkloadCost> Workloads { get; init; }
    /// <summary>Every workload's requests and storage, in the table's currency.</summary>
    public required double Total { get; init; }
    /// <summary>How each kind of request was counted.</summary>
    public required IReadOnlyList<string> Counting { get; init; }
    /// <summary>What the estimate does not include.</summary>
    public required IReadOnlyList<string> Excludes { get; init; }
}

/// <summary>Which price table priced the run, and what it says of itself.</summary>
public sealed record PricesUsed(string File, string Currency, string Region, string ReadOn, string Source, string EntityGroupTransactionBilling);

/// <summary>One workload's (or sweep step's) cost, line by line, and per unit of what it stored.</summary>
public sealed record WorkloadCost
{
    public required string Workload { get; init; }
    public string? StepParameter { get; init; }
    public double? StepValue { get; init; }
    public required IReadOnlyList<CostLine> Lines { get; init; }
    /// <summary>Transactions billed: requests, or for entity group transactions billed per entity, their entities; free requests not.</summary>
    public required long BilledTransactions { get; init; }
    public required double TransactionsCost { get; init; }
    /// <summary>GB-months held: stored bytes (decimal GB) over the workload's duration, as the step deletes its data when it ends: about 0.</summary>
    public required double StorageGbMonths { get; init; }
    public required double StorageCost { get; init; }
    public required double Total { get; init; }
    /// <summary>Table: the total per million entities stored.</summary>
    public double? PerMillionEntities { get; init; }
    /// <summary>The total per GB (10^9 bytes) stored: entity payloads, or committed blobs.</summary>
    public double? PerGigabyte { get; init; }
    /// <summary>Table: the run phase alone (the writes, what grows with the count) per million entities; priming, setup and cleanup are fixed.</summary>
    public double? AtScalePerMillionEntities { get; init; }
    /// <summary>The run phase alone per GB stored.</summary>
    public double? AtScalePerGigabyte { get; init; }
}

/// <summary>A transaction line priced: requests sent, transactions billed, the price of 10,000 and their cost.</summary>
public sealed record CostLine(string Kind, string Phase, string BilledAs, long Requests, long Billed, double PricePer10k, double Cost)
{
    /// <summary>Of the measured window's requests, those that did not succeed (they are billed too).</summary>
    public long? Failed { get; init; }

    /// <summary>A data transfer line: the bytes read out, and the price per GB they were priced at (null: the table has none, priced 0).</summary>
    public long? Bytes { get; init; }
    public double? PricePerGb { get; init; }
}
