using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Planning;

/// <summary>One table-insert activity's share of a run. Serializable: it crosses the orchestration boundary.</summary>
/// <param name="EntityCount">This slice's share of the entities (count mode).</param>
/// <param name="OperationsPerSecond">This slice's share of the target rate; 0 = closed loop.</param>
/// <param name="TargetIndex">Which configured target account this slice writes to.</param>
public sealed record TableSlicePlan(
    string RunId,
    string TableName,
    int SliceIndex,
    string[] PartitionKeys,
    long EntityCount,
    double OperationsPerSecond,
    TableInsertSpec Workload,
    ClientSettings Client,
    DateTime StartAtUtc,
    int TargetIndex = 0);

/// <summary>One blob-upload activity's share of a run.</summary>
/// <param name="BlobCount">This slice's share of the blobs (count mode).</param>
/// <param name="TargetIndex">Which configured target account this slice writes to.</param>
public sealed record BlobSlicePlan(
    string RunId,
    string ContainerName,
    int SliceIndex,
    int BlobCount,
    BlobUploadSpec Workload,
    ClientSettings Client,
    DateTime StartAtUtc,
    int TargetIndex = 0);
