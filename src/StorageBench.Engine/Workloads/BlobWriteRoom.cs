namespace StorageBench.Engine.Workloads;

/// <summary>One blob write slice's share of a step: its blobs, whichever blob room's section it runs.</summary>
/// <param name="BlobCount">This slice's share of the blobs (count mode).</param>
/// <param name="TargetIndex">Which configured target account this slice writes to.</param>
public sealed record BlobSlicePlan<TSpec>(string RunId, string StepId, string ContainerName, int SliceIndex, int BlobCount, TSpec Workload, ClientSettings Client,
    DateTime StartAtUtc, int TargetIndex = 0)
    where TSpec : WorkloadSpec;

/// <summary>What a blob write room's verification needs: the container, the accepted attempts, the blobs they report and their size.</summary>
/// <param name="ContentMd5ByAttempt">Null: check what the room checks without reading blobs back. Otherwise each accepted attempt's content MD5, and every blob is read back.</param>
public sealed record VerifyBlobsInput(string ContainerName, string[] AcceptedAttempts, long ReportedBlobs, long BlobSizeBytes, Dictionary<string, string>? ContentMd5ByAttempt);

/// <summary>
/// What every blob write room (block, page, append) has alike: the step's container, its blobs shared out over the slices, a
/// slice's progress in bytes, and the goodput figures and request lines of <see cref="BlobWriteSummary"/>. A room gives its
/// section's blob count, size and slices, its words, its rules, its writes and its verification.
/// </summary>
public abstract class BlobWriteRoom<TSpec, TVerify> : Workload<TSpec, BlobSlicePlan<TSpec>, TVerify>
    where TSpec : WorkloadSpec
{
    public override string CountField => "blobCount";

    public override TargetService Service => TargetService.Blob;

    /// <summary>Its section's blobs: how many, how large, over how many slices.</summary>
    protected abstract (int Count, long SizeBytes, int Slices) BlobsOf(TSpec section);

    /// <summary>Its requests' words: the part, the request counted apart, priming's, verification's read.</summary>
    private protected abstract BlobWriteWords Words { get; }

    protected override IReadOnlyList<BlobSlicePlan<TSpec>> Plan(StepPlan stepPlan, TSpec section, ClientSettings client)
    {
        var (count, _, slices) = BlobsOf(section);
        return [.. Enumerable.Range(0, slices).Select(i => new BlobSlicePlan<TSpec>(stepPlan.RunId, stepPlan.StepId, stepPlan.TargetName, i,
            (int)Planner.Share(count, i, slices), section, client, stepPlan.StartAtUtc, i % stepPlan.TargetAccounts))];
    }

    protected override SliceHeader HeaderOf(BlobSlicePlan<TSpec> plan) => new(plan.RunId, plan.StepId, plan.SliceIndex, plan.StartAtUtc, plan.TargetIndex);

    protected override SliceProgress ProgressOf(SliceOrder order, BlobSlicePlan<TSpec> plan) => new(plan.StepId, Name, plan.SliceIndex, default, 0,
        plan.Workload.DurationSeconds > 0 ? 0 : plan.BlobCount * BlobsOf(plan.Workload).SizeBytes, plan.Workload.DurationSeconds, plan.StartAtUtc, default, false);

    /// <summary>Its verification's order: the slices' accepted attempts and blobs, with their content MD5s when <paramref name="verifyContent"/>.</summary>
    protected VerifyBlobsInput BlobsToVerify(TSpec section, StepPlan stepPlan, IReadOnlyList<SliceResult> slices, bool verifyContent) =>
        new(stepPlan.TargetName, Attempts(slices), slices.Sum(s => s.Objects), BlobsOf(section).SizeBytes, verifyContent ? ContentByAttempt(slices) : null);

    /// <param name="failedBlobsHoldBytes">True when a failed blob keeps what its parts wrote (a page or append blob; a block blob never committed holds nothing).</param>
    protected WorkloadSummary SummarizeBlobs(string measures, TSpec section, IReadOnlyList<SliceResult> slices, VerificationResult verified, bool failedBlobsHoldBytes)
    {
        var (count, size, _) = BlobsOf(section);
        return BlobWriteSummary.Of(Kind, measures, section, count, size, slices, verified, Words, failedBlobsHoldBytes);
    }

}
