
namespace StorageBench.Engine.Workloads.TableInsert;

/// <summary>Entity group transactions (or single inserts when batchSize is 1) into one table per run.</summary>
public sealed record TableInsertSpec : WorkloadSpec, ITableSection, ISlicedSection
{
    public long EntityCount { get; init; } = 10_000;
    public int EntitySizeBytes { get; init; } = 1024;
    public int BatchSize { get; init; } = 100;
    /// <summary>Distinct partitions in the run; slices share them when there are fewer partitions than slices.</summary>
    public int PartitionCount { get; init; } = 1;
    /// <summary>In-flight requests per slice.</summary>
    public int Concurrency { get; init; } = 4;
    /// <summary>Parallel activities (instances in the seeds' terms).</summary>
    public int Slices { get; init; } = 1;

    /// <summary>
    /// 0: closed loop (each in-flight slot sends its next request when the last one returns).
    /// Above 0: open loop at this many requests per second across all slices. Latency runs from each request's slot in
    /// the schedule (from its send when the timer woke early), so a loop that falls behind shows the wait its callers would
    /// have had; service time (from the send) and the schedule's lag are reported beside it. With a duration, slots not
    /// sent by its end are dropped and counted, not sent late.
    /// </summary>
    public double TargetOperationsPerSecond { get; init; }
}
