namespace StorageBench.Engine.Workloads;

/// <summary>One blob write slice's share of a step: its blobs, whichever blob room's section it runs.</summary>
/// <param name="BlobCount">This slice's share of the blobs (count mode).</param>
/// <param name="TargetIndex">Which configured target account this slice writes to.</param>
public sealed record BlobSlicePlan<TSpec>(string RunId, string StepId, string ContainerName, int SliceIndex, int BlobCount, TSpec Workload, ClientSettings Client,
    DateTime StartAtUtc, int TargetIndex = 0)
    where TSpec : BlobWriteSpec;

/// <summary>What a blob write room's verification needs: the container, the accepted attempts, the blobs they report, their size and parts.</summary>
/// <param name="Parts">Part requests per blob (blocks, page ranges, appends): what an append blob's committed block count must be.</param>
/// <param name="ContentMd5ByAttempt">Null: check what the room checks without reading blobs back. Otherwise each accepted attempt's content MD5, and every blob is read back.</param>
public sealed record VerifyBlobsInput(string ContainerName, string[] AcceptedAttempts, long ReportedBlobs, long BlobSizeBytes, long Parts,
    Dictionary<string, string>? ContentMd5ByAttempt);

/// <summary>
/// What every blob write room (block, page, append) has alike: the step's container, its blobs shared out over the slices, a
/// slice's progress in bytes, its verification's order, and the goodput figures and request lines of <see cref="BlobWriteSummary"/>.
/// A room gives its part size, its words, its rules, its writes and its ground truth.
/// </summary>
public abstract class BlobWriteRoom<TSpec> : Workload<TSpec, BlobSlicePlan<TSpec>, VerifyBlobsInput>
    where TSpec : BlobWriteSpec
{
    public override string CountField => "blobCount";

    public override TargetService Service => TargetService.Blob;

    /// <summary>Bytes one part request writes (a block, a page range, an append); the last part of a blob may be shorter.</summary>
    protected abstract int PartBytesOf(TSpec section);

    /// <summary>The rules of its own fields (part size, blob size, parallelism, retries); <paramref name="p"/> is its section's path ("blobUpload.").</summary>
    protected abstract void ValidateParts(TSpec section, SpecChecks errors, string p);

    /// <summary>Its requests' words: the part, the request counted apart, priming's, verification's read.</summary>
    private protected abstract BlobWriteWords Words { get; }

    /// <summary>The rules every blob write section has: its count, its own fields' rules, its slices, its run length, its warm-up.</summary>
    protected sealed override void Validate(TSpec section, SpecChecks errors)
    {
        string p = Name + ".";
        int before = errors.Count;
        errors.Range(p + "blobCount", section.BlobCount, 1, 100_000);
        ValidateParts(section, errors, p);
        errors.Range(p + "slices", section.Slices, 1, ServiceLimits.MaxSlices);
        errors.RunLength(section, p);
        errors.SlicesShare(p, section.Slices, "blobCount", section.BlobCount, "blob");
        if (errors.Count == before && section.DurationSeconds == 0)
        {
            // warmupOperations counts part requests; the smallest slice has the last share of the blobs.
            long fewest = section.BlobCount / section.Slices * PartsOf(section);
            if (section.WarmupOperations >= fewest)
            {
                errors.Add(new(p + "warmupOperations", Num(section.WarmupOperations),
                    $"must be less than the {Num(fewest)} {Words.Part}s {(section.Slices > 1 ? "the smallest slice" : "the run")} sends (blobCount {Num(section.BlobCount)} of " +
                    $"{Num(section.BlobSizeBytes)} bytes in {Words.Pieces} of {Num(PartBytesOf(section))}{(section.Slices > 1 ? $" over {Num(section.Slices)} slices" : "")}), or nothing is measured"));
            }
        }
    }

    /// <summary>The service's limit of committed blocks per block or append blob: blobSizeBytes in parts of <paramref name="partField"/>.</summary>
    protected void WithinBlockLimit(TSpec section, SpecChecks errors, string p, string partField, string blob)
    {
        if (PartBytesOf(section) > 0 && section.BlobSizeBytes > 0 && PartsOf(section) > ServiceLimits.MaxBlocksPerBlob)
        {
            errors.Add(new(p + "blobSizeBytes", Num(section.BlobSizeBytes), $"needs {Num(PartsOf(section))} {Words.Pieces} of {partField} {Num(PartBytesOf(section))}, " +
                $"over the service limit of {ServiceLimits.MaxBlocksPerBlob} blocks per {blob}"));
        }
    }

    protected override IReadOnlyList<BlobSlicePlan<TSpec>> Plan(StepPlan stepPlan, TSpec section, ClientSettings client) =>
        [.. Enumerable.Range(0, section.Slices).Select(i => new BlobSlicePlan<TSpec>(stepPlan.RunId, stepPlan.StepId, stepPlan.TargetName, i,
            (int)Planner.Share(section.BlobCount, i, section.Slices), section, client, stepPlan.StartAtUtc, i % stepPlan.TargetAccounts))];

    protected override SliceHeader HeaderOf(BlobSlicePlan<TSpec> plan) => new(plan.RunId, plan.StepId, plan.SliceIndex, plan.StartAtUtc, plan.TargetIndex);

    protected override SliceProgress ProgressOf(SliceOrder order, BlobSlicePlan<TSpec> plan) => new(plan.StepId, Name, plan.SliceIndex, default, 0,
        plan.Workload.DurationSeconds > 0 ? 0 : plan.BlobCount * plan.Workload.BlobSizeBytes, plan.Workload.DurationSeconds, plan.StartAtUtc, default, false);

    /// <summary>The slices' accepted attempts and blobs, with their content MD5s when the section asks to read them back.</summary>
    protected override VerifyBlobsInput VerifyOrderOf(TSpec section, StepPlan stepPlan, IReadOnlyList<SliceResult> slices) =>
        new(stepPlan.TargetName, Attempts(slices), slices.Sum(s => s.Objects), section.BlobSizeBytes, PartsOf(section),
            section.VerifyContent ? ContentByAttempt(slices) : null);

    /// <summary>Part requests per blob: the last one shorter when the size is not a multiple.</summary>
    public long PartsOf(TSpec section) => BlobWriteSlice.PartsOf(section.BlobSizeBytes, PartBytesOf(section));

    /// <param name="failedBlobsHoldBytes">True when a failed blob keeps what its parts wrote (a page or append blob; a block blob never committed holds nothing).</param>
    protected WorkloadSummary SummarizeBlobs(string measures, TSpec section, IReadOnlyList<SliceResult> slices, VerificationResult verified, bool failedBlobsHoldBytes) =>
        BlobWriteSummary.Of(Kind, measures, section, slices, verified, Words, failedBlobsHoldBytes);
}
