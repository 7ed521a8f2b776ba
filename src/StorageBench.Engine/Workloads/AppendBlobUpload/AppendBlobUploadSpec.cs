
namespace StorageBench.Engine.Workloads.AppendBlobUpload;

/// <summary>
/// Append blobs (logs, streams): each created empty, then grown by Append Block of appendSizeBytes (the last shorter), one
/// append in flight per blob, parallelBlobs blobs at once per slice.
/// </summary>
public sealed record AppendBlobUploadSpec : BlobWriteSpec
{
    /// <summary>Bytes per Append Block: at most 100 MiB at the x-ms-version this tool sends (4 MiB before 2022-11-02).</summary>
    public int AppendSizeBytes { get; init; } = 4 * 1024 * 1024;

    /// <summary>Blobs a slice appends to at once, each with one Append Block in flight (an append blob grows in order).</summary>
    public int ParallelBlobs { get; init; } = 4;
}
