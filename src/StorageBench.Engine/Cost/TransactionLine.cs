namespace StorageBench.Engine.Cost;

/// <summary>
/// One kind of request a workload sent, as counted, and the price-table line it is billed at.
/// Requests are every request sent: failed and throttled ones too (Azure bills a request once it is
/// authenticated, failed or not), warm-up and retries included.
/// </summary>
/// <param name="Kind">What was sent, e.g. "entity group transactions", "Put Block", "List Blobs pages".</param>
/// <param name="Phase">When: <see cref="Phases"/>.</param>
/// <param name="BilledAs">The price-table line: <see cref="BilledAs"/>.</param>
/// <param name="Requests">Requests sent.</param>
public sealed record TransactionLine(string Kind, string Phase, string BilledAs, long Requests)
{
    /// <summary>Entity group transactions only: the entity operations in them, what a per-entity billing of batches counts.</summary>
    public long? Entities { get; init; }

    /// <summary>Of the measured window's requests, those that did not succeed (throttled, timed out, errors); null where not counted by kind.</summary>
    public long? Failed { get; init; }

    /// <summary><see cref="BilledAs.DataTransferOut"/> only: the bytes read out (priced per GB, not per request; Requests is 0).</summary>
    public long? Bytes { get; init; }
}

/// <summary>When a request was sent, relative to the measured window.</summary>
public static class Phases
{
    /// <summary>The measured window and its warm-up: what grows with the amount written.</summary>
    public const string Run = "run";
    /// <summary>Before the start instant: real, billed requests that warm the request path up.</summary>
    public const string Priming = "priming";
    /// <summary>Ground truth after the run: counting what landed, deleting what other executions left.</summary>
    public const string Verification = "verification";
    /// <summary>Creating the step's table or container.</summary>
    public const string Setup = "setup";
    /// <summary>Deleting the step's table or container.</summary>
    public const string Cleanup = "cleanup";
    /// <summary>A reading workload writing what its slices will read, before the measured window.</summary>
    public const string Seeding = "seeding";
}

/// <summary>The price-table lines requests are billed at (Azure's categories for table and blob requests).</summary>
public static class BilledAs
{
    public const string TableTransaction = "table transaction";
    public const string BlobWrite = "blob write operation";
    public const string BlobListOrCreateContainer = "blob list or create container operation";
    public const string BlobRead = "blob read operation";
    public const string BlobOther = "blob other operation";
    /// <summary>Delete Blob and Delete Container on general-purpose v2 accounts.</summary>
    public const string Free = "free";
    /// <summary>Bytes read out of the account, priced per GB (egress out of the region; within it Azure charges none).</summary>
    public const string DataTransferOut = "data transfer out";
}

/// <summary>Requests that created or deleted a step's tables and containers, counted on the wire.</summary>
public sealed record TargetRequests(long Tables, long Containers)
{
    /// <summary>Each table's or container's own requests (its workload's Create/Delete line), by name.</summary>
    public IReadOnlyDictionary<string, long> ByName { get; init; } = new Dictionary<string, long>();

    /// <summary>What the service called itself (its Server header) when the step's table or container was made: Azurite's version; null when not seen.</summary>
    public string? Server { get; init; }
}
