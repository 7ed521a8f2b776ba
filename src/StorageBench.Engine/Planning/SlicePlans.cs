using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Planning;

/// <summary>The partitions a slice writes: Count keys starting at index First, Stride apart. Batch b goes to the (b mod Count)-th.</summary>
public sealed record PartitionRange(int First, int Stride, int Count)
{
    public string KeyOf(long batch) => Planner.PartitionKey(First + (int)(batch % Count) * Stride);

    public IEnumerable<string> Keys() => Enumerable.Range(0, Count).Select(i => Planner.PartitionKey(First + i * Stride));
}

/// <summary>One table-insert activity's share of a step. Serializable and small: it crosses the orchestration boundary.</summary>
/// <param name="RunId">The run, for its cancel signal.</param>
/// <param name="EntityCount">This slice's share of the entities (count mode).</param>
/// <param name="OperationsPerSecond">This slice's share of the target rate; 0 = closed loop.</param>
/// <param name="TargetIndex">Which configured target account this slice writes to.</param>
public sealed record TableSlicePlan(
    string RunId,
    string StepId,
    string TableName,
    int SliceIndex,
    PartitionRange Partitions,
    long EntityCount,
    double OperationsPerSecond,
    TableInsertSpec Workload,
    ClientSettings Client,
    DateTime StartAtUtc,
    int TargetIndex = 0);

/// <summary>One blob-upload activity's share of a step.</summary>
/// <param name="BlobCount">This slice's share of the blobs (count mode).</param>
/// <param name="TargetIndex">Which configured target account this slice writes to.</param>
public sealed record BlobSlicePlan(
    string RunId,
    string StepId,
    string ContainerName,
    int SliceIndex,
    int BlobCount,
    BlobUploadSpec Workload,
    ClientSettings Client,
    DateTime StartAtUtc,
    int TargetIndex = 0);
