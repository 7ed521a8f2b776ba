using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Planning;

/// <summary>One table-insert activity's share of a run. Serializable: it crosses the orchestration boundary.</summary>
public sealed record TableSlicePlan(
    string RunId,
    string TableName,
    int SliceIndex,
    int SliceCount,
    string[] PartitionKeys,
    long EntityCount,
    int EntitySizeBytes,
    int BatchSize,
    int Concurrency,
    ClientSettings Client,
    DateTime StartAtUtc);

/// <summary>One blob-upload activity's share of a run: a contiguous range of blob indexes.</summary>
public sealed record BlobSlicePlan(
    string RunId,
    string ContainerName,
    int SliceIndex,
    int SliceCount,
    int FirstBlobIndex,
    int BlobCount,
    long BlobSizeBytes,
    int BlockSizeBytes,
    int ParallelBlocks,
    ClientSettings Client,
    DateTime StartAtUtc);
