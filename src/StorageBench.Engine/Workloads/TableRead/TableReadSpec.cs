
namespace StorageBench.Engine.Workloads.TableRead;

/// <summary>
/// Reads of entities the workload seeds itself (outside the measured window): point reads by PartitionKey and RowKey,
/// or partition queries filtering on an Int64 property whose values lie above 2^31 − 1. Every returned entity is checked
/// against what was seeded.
/// </summary>
public sealed record TableReadSpec : WorkloadSpec, ITableSection, ISlicedSection
{
    public const string Point = "point";
    public const string Query = "query";

    /// <summary>Entities seeded before the run, spread over the partitions in contiguous runs.</summary>
    public long EntityCount { get; init; } = 1_000;

    public int EntitySizeBytes { get; init; } = 1024;

    public int PartitionCount { get; init; } = 1;

    /// <summary>"point": Get Entity by PartitionKey and RowKey. "query": a partition query with a range filter on the Int64 property Sequence.</summary>
    public string Operation { get; init; } = Point;

    /// <summary>Query only: the entities one query asks for (a contiguous Sequence range of one partition); it may take several pages of up to 1,000.</summary>
    public int QueryEntities { get; init; } = 100;

    /// <summary>Reads in a fixed-count run (point reads, or queries), across all slices; a duration runs however many fit.</summary>
    public long ReadCount { get; init; } = 10_000;

    /// <summary>In-flight reads per slice.</summary>
    public int Concurrency { get; init; } = 4;

    /// <summary>Parallel activities; each owns its partitions (seeds and reads them), so at most partitionCount.</summary>
    public int Slices { get; init; } = 1;

    /// <summary>0: closed loop. Above 0: reads started per second across all slices, open loop as tableInsert's (latency from the slot).</summary>
    public double TargetOperationsPerSecond { get; init; }
}
