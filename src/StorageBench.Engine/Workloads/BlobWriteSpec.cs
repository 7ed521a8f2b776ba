using System.Text.Json.Serialization;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// What every blob write section (blobUpload, pageBlobUpload, appendBlobUpload) has alike: its blobs, how many and how large,
/// the slices they are shared out over, and whether they are read back. Each section writes these around its own fields, as
/// it did before they were shared: the count and size first, slices and verifyContent after (the orders below).
/// </summary>
public abstract record BlobWriteSpec : WorkloadSpec, ISlicedSection
{
    [JsonPropertyOrder(-2)]
    public int BlobCount { get; init; } = 4;

    [JsonPropertyOrder(-1)]
    public long BlobSizeBytes { get; init; } = 8L * 1024 * 1024;

    [JsonPropertyOrder(1)]
    public int Slices { get; init; } = 1;

    /// <summary>After the run, read every blob back and compare its MD5 with what was sent (costs a full read).</summary>
    [JsonPropertyOrder(2)]
    public bool VerifyContent { get; init; }
}
