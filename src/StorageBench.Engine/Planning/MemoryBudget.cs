using System.Globalization;

namespace StorageBench.Engine.Planning;

/// <summary>
/// The payload memory a spec plans for one driver process, against a budget, checked before anything starts: a spec that
/// would take the machine's (or a Function App instance's) memory is refused naming the budget, the figure and the fields
/// that drive it, instead of an out-of-memory kill and, in the Function App, a recycle and a re-run.
/// What is counted is what grows with the spec: the request bodies in flight and the read buffers, as one process holds
/// them when <see cref="SlicesPerProcess"/> of a step's slices run on it at once. A blob or page payload is one buffer per
/// size, shared by every slice (<c>EntityPayload.RandomBytes</c>), so it counts once.
/// </summary>
/// <param name="Bytes">The budget.</param>
/// <param name="Source">What the budget is, as the refusal says it: "half of this machine's 24,000 MiB".</param>
/// <param name="SlicesPerProcess">How many slices of a step one process runs at once (a Function App instance: its maxConcurrentActivityFunctions).</param>
public sealed record MemoryBudget(long Bytes, string Source, int SlicesPerProcess = int.MaxValue)
{
    private const long MiB = 1024 * 1024;

    /// <summary>The memory limit of a Function App instance, in MB, as App Service sets it for the process.</summary>
    public const string InstanceLimitSetting = "WEBSITE_MEMORY_LIMIT_MB";

    /// <summary>The read buffer of one blobDownload loop never exceeds this (BlobDownloadSlice reads a larger range through it).</summary>
    private const long DownloadBufferBytes = 1 << 20;

    /// <summary>
    /// Half of what this process may use: the memory the runtime sees (a container's limit included), or the instance's
    /// <see cref="InstanceLimitSetting"/> when that is smaller. The other half is the runtime's, the engine's and the
    /// network's own.
    /// </summary>
    public static MemoryBudget OfThisProcess(Func<string, string?> setting, int slicesPerProcess = int.MaxValue)
    {
        long available = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
        string source = $"half of this machine's {available / MiB:N0} MiB";
        if (long.TryParse(setting(InstanceLimitSetting), NumberStyles.None, CultureInfo.InvariantCulture, out long mb) && mb > 0 && mb * MiB < available)
        {
            available = mb * MiB;
            source = $"half of the instance's {mb:N0} MiB ({InstanceLimitSetting})";
        }
        return new MemoryBudget(available / 2, source, slicesPerProcess);
    }

    /// <summary>
    /// The refusal when the spec, or the largest step of its sweep or saturation search, plans more than the budget; null
    /// when every step fits.
    /// </summary>
    public ValidationError? Refusal(RunSpec spec)
    {
        var (parts, total) = SpecVariants.Steps(spec).Select(step => Planned(step).Where(p => p.Bytes > 0).ToList())
            .Select(parts => (Parts: parts, Total: parts.Sum(p => p.Bytes))).MaxBy(s => s.Total);
        return total <= Bytes ? null : new ValidationError("(spec)", $"{total / MiB:N0} MiB of payload memory",
            $"exceeds the memory budget of {Bytes / MiB:N0} MiB ({Source}): {string.Join("; ", parts.Select(p => p.Why))}; lower them, or give the slices more workers");
    }

    private IEnumerable<(long Bytes, string Why)> Planned(RunSpec spec)
    {
        if (spec.TableInsert is { } t)
        {
            // Each request in flight carries its batch as base64 JSON: 4/3 of the payload.
            int slices = Math.Min(t.Slices, SlicesPerProcess);
            long body = (long)Math.Ceiling(t.BatchSize * (double)t.EntitySizeBytes * 4 / 3);
            yield return (slices * (long)t.Concurrency * body,
                $"tableInsert.slices {slices} × tableInsert.concurrency {t.Concurrency} requests in flight × tableInsert.batchSize {t.BatchSize} × tableInsert.entitySizeBytes {t.EntitySizeBytes:N0} as base64");
        }
        if (spec.BlobUpload is { } b)
        {
            yield return (Math.Min(b.BlockSizeBytes, b.BlobSizeBytes), $"blobUpload.blockSizeBytes {b.BlockSizeBytes:N0} (one buffer, shared by every slice)");
        }
        if (spec.PageBlobUpload is { } p)
        {
            yield return (Math.Min(p.PageRangeBytes, p.BlobSizeBytes), $"pageBlobUpload.pageRangeBytes {p.PageRangeBytes:N0} (one buffer, shared by every slice)");
        }
        if (spec.AppendBlobUpload is { } a)
        {
            yield return (Math.Min(a.AppendSizeBytes, a.BlobSizeBytes), $"appendBlobUpload.appendSizeBytes {a.AppendSizeBytes:N0} (one buffer, shared by every slice)");
        }
        if (spec.BlobDownload is { } d)
        {
            int slices = Math.Min(d.Slices, SlicesPerProcess);
            long buffer = Math.Min(DownloadBufferBytes, d.RangeSizeBytes > 0 ? d.RangeSizeBytes : d.BlobSizeBytes);
            yield return (slices * (long)d.ParallelRanges * buffer,
                $"blobDownload.slices {slices} × blobDownload.parallelRanges {d.ParallelRanges} read buffers of {buffer:N0} bytes");
        }
    }
}
