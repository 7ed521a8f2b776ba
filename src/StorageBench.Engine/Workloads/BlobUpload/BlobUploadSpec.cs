
namespace StorageBench.Engine.Workloads.BlobUpload;

/// <summary>Put Block ×N in parallel, then Put Block List, per blob.</summary>
public sealed record BlobUploadSpec : BlobWriteSpec
{
    public int BlockSizeBytes { get; init; } = 4 * 1024 * 1024;
    /// <summary>In-flight Put Block requests per blob.</summary>
    public int ParallelBlocks { get; init; } = 4;
    /// <summary>
    /// How many more times a Put Block or Put Block List that was throttled or failed transiently is
    /// sent (after 100 ms, then 200, 400, … up to 3.2 s), as storage clients do when the service asks
    /// them to back off. Every attempt is counted; a blob fails only when its retries are exhausted.
    /// 0: a failed block fails its blob.
    /// </summary>
    public int BlockRetries { get; init; } = 3;
}
