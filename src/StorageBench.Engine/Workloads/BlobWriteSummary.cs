
namespace StorageBench.Engine.Workloads;

/// <summary>What a blob upload's words are: its data request, the request counted apart (a commit, a create), and the per-blob read its verification makes.</summary>
/// <param name="Part">"Put Block", "Put Page", "Append Block".</param>
/// <param name="Apart">The request counted but not timed ("Put Block List"); null when none.</param>
/// <param name="PrimingWrites">What priming wrote ("priming Put Block and Put Block List").</param>
/// <param name="BlobRead">Verification's per-blob read beside the content reads ("Get Page Ranges"); null when none.</param>
/// <param name="Pieces">What a blob is written in, as a rule says it ("blocks", "ranges", "appends").</param>
internal sealed record BlobWriteWords(string Part, string? Apart, string PrimingWrites, string? BlobRead, string Pieces);

/// <summary>
/// The figures every blob upload has (<see cref="BlobWrites{TSpec, TBlob}"/>): throughput is goodput — bytes of blobs whose every
/// request landed, per second; a part of a blob that failed is work the run lost; bytes written by successful parts per
/// second stay available as block throughput. And its request lines, as counted, for the cost estimate.
/// </summary>
internal static class BlobWriteSummary
{
    /// <param name="failedBlobsHoldBytes">True when a failed blob keeps what its parts wrote (a page or append blob; a block blob never committed holds nothing).</param>
    public static WorkloadSummary Of(WorkloadKind kind, string measures, BlobWriteSpec section, IReadOnlyList<SliceResult> slices,
        VerificationResult verified, BlobWriteWords words, bool failedBlobsHoldBytes)
    {
        var w = SummaryCalculator.Summarize(kind, measures, slices, verified);
        long goodBytes = slices.Sum(s => s.CommittedUnits);
        long planned = section.DurationSeconds > 0 ? slices.Sum(s => s.Planned) : section.BlobCount;
        long done = slices.Sum(s => s.Objects);
        long failedBytes = slices.Sum(s => s.FailedObjectUnits);
        return SummaryCalculator.Complete(w, planned, done) with
        {
            Bytes = goodBytes,
            Throughput = SummaryCalculator.Rates(kind, w.Succeeded, goodBytes, w.DurationSeconds),
            BlockThroughput = w.Throughput,
            BytesSent = w.Bytes,
            BytesSentForFailedBlobs = failedBytes,
            BlobsPlanned = planned,
            BlobsCommitted = done,
            BlobsFailed = Math.Max(0, planned - done),
            Priming = SummaryCalculator.PrimingOf(slices),
            Transactions = Transactions(slices, verified, words),
            StoredBytes = done * section.BlobSizeBytes + (failedBlobsHoldBytes ? failedBytes : 0),
        };
    }

    /// <summary>Its requests by kind, as counted (<see cref="TransactionCounts"/>): what the cost estimate prices.</summary>
    public static IReadOnlyList<TransactionLine> Transactions(IReadOnlyList<SliceResult> slices, VerificationResult verified, BlobWriteWords words)
    {
        long sent = slices.Sum(s => s.Counts.Operations + s.WarmupOperations);
        long failed = slices.Sum(s => s.Counts.Failed);
        // Requests counted apart travel as a block upload's commits do: counted, not timed.
        var r = TransactionCounts.Sum(slices);
        var lines = new List<TransactionLine> { new(words.Part, Phases.Run, BilledAs.BlobWrite, sent - r.BlockLists) { Failed = failed - r.BlockListsFailed } };
        if (words.Apart is { } apart)
        {
            lines.Add(new(apart, Phases.Run, BilledAs.BlobWrite, r.BlockLists) { Failed = r.BlockListsFailed });
        }
        TransactionCounts.Add(lines, new(words.PrimingWrites, Phases.Priming, BilledAs.BlobWrite, r.PrimingWrites));
        TransactionCounts.Add(lines, new("priming probe (Get Container Properties)", Phases.Priming, BilledAs.BlobOther, r.PrimingProbes));
        TransactionCounts.Add(lines, new("priming Delete Blob", Phases.Priming, BilledAs.Free, r.PrimingDeletes));
        if (verified.Requests is { } v)
        {
            TransactionCounts.Add(lines, new("List Blobs pages", Phases.Verification, BilledAs.BlobListOrCreateContainer, v.Queries));
            // The per-blob reads are counted among the reads (PageRangeReads), apart from the content reads.
            long blobReads = words.BlobRead is null ? 0 : v.PageRangeReads;
            TransactionCounts.Add(lines, new(words.BlobRead ?? "", Phases.Verification, BilledAs.BlobOther, blobReads));
            TransactionCounts.Add(lines, new("content reads (Get Blob)", Phases.Verification, BilledAs.BlobRead, v.Reads - blobReads));
            TransactionCounts.Add(lines, new("Delete Blob of blobs other executions left", Phases.Verification, BilledAs.Free, v.Deletes));
        }
        TransactionCounts.Add(lines, new("SDK retries", Phases.Run, BilledAs.BlobWrite, r.Wire - sent - r.PrimingWrites - r.PrimingProbes - r.PrimingDeletes));
        return lines;
    }
}
