using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Planning;

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
