
namespace StorageBench.Engine.Workloads.BlobDownload;

/// <summary>
/// Seeds blobCount blobs (outside the measured window), then downloads whole blobs with Get Blob, or reads them in ranges of
/// rangeSizeBytes (x-ms-range), parallelRanges requests in flight per slice.
/// </summary>
public sealed record BlobDownloadSpec : WorkloadSpec, ISlicedSection
{
    /// <summary>Blobs seeded before the run (split across the slices: slice i writes blobs i, i + slices, …); at least one per slice.</summary>
    public int BlobCount { get; init; } = 4;

    public long BlobSizeBytes { get; init; } = 8L * 1024 * 1024;

    /// <summary>0: each Get Blob reads a whole blob. Above 0: a blob is read in ranges of this size (the last may be shorter).</summary>
    public long RangeSizeBytes { get; init; }

    /// <summary>
    /// Get Blob requests in flight per slice: a blob's ranges go out together (with ranges), or each loop reads its next
    /// whole blob (without).
    /// </summary>
    public int ParallelRanges { get; init; } = 4;

    /// <summary>Whole-blob downloads in a fixed-count run, across all slices (durationSeconds above 0 makes the run timed instead).</summary>
    public long DownloadCount { get; init; } = 16;

    public int Slices { get; init; } = 1;

    /// <summary>
    /// False: every download's length is checked against the seed. True: its MD5 too (of the whole blob, or of each range
    /// against the same range of the seed), which costs the driver CPU the figures include.
    /// </summary>
    public bool VerifyContent { get; init; }
}
