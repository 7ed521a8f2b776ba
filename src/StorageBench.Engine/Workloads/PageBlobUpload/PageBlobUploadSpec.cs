
namespace StorageBench.Engine.Workloads.PageBlobUpload;

/// <summary>
/// Page blobs: each created at its full size (Put Blob), then written by Put Page in ranges of at most pageRangeBytes,
/// parallelRanges in flight per blob. The page-or-block comparison is a spec with this and a blobUpload section. Its
/// blobSizeBytes is a multiple of 512 (a page), at most 8 TiB (the service's page blob limit).
/// </summary>
public sealed record PageBlobUploadSpec : BlobWriteSpec
{
    /// <summary>Bytes per Put Page: a multiple of 512, at most 4 MiB (the service's limit per Put Page). The last range of a blob may be shorter.</summary>
    public int PageRangeBytes { get; init; } = 4 * 1024 * 1024;

    /// <summary>In-flight Put Page requests per blob.</summary>
    public int ParallelRanges { get; init; } = 4;

    /// <summary>
    /// How many more times a Put Page or a create that was throttled or failed transiently is sent, after the back-off
    /// blobUpload.blockRetries uses (<see cref="Workloads.BlockRetryDelays"/>). Every attempt is counted; a blob fails only
    /// when its retries are exhausted. 0: a failed Put Page fails its blob.
    /// </summary>
    public int Retries { get; init; } = 3;
}
