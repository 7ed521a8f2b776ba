using System.Globalization;
using Azure;
using Azure.Storage;
using Azure.Storage.Blobs.Models;
using Azure.Storage.Blobs.Specialized;

namespace StorageBench.Engine.Workloads.BlobDownload;

/// <summary>
/// Blob download: seeds its own blobs (one Put Blob each, outside the measured window), then downloads them with Get Blob —
/// whole, or in ranges of rangeSizeBytes (x-ms-range) — with parallelRanges requests in flight per slice. One operation is
/// one Get Blob; its latency runs from the send to the last byte, its time to first byte (the answer's headers) is recorded
/// beside it. Throughput is goodput: bytes of whole blobs downloaded and checked against the seed, per second. A failed or
/// wrong range fails its blob's download; a failed Get Blob is counted and not retried (the next download goes on: a retry
/// would send what the next one sends anyway, and would hide the failure's cost in the latency of a success).
/// </summary>
public sealed partial class BlobDownloadRoom : Workload<BlobDownloadSpec, BlobDownloadSlicePlan, BlobDownloadVerifyOrder>
{
    public const string WorkloadName = "blobDownload";

    public static BlobDownloadRoom Instance { get; } = new();

    public override WorkloadKind Kind { get; } = WorkloadKind.CountingBytes(WorkloadName, "BlobDownload") with
    {
        PlannedUnit = "downloads", Done = "downloaded", StoredWord = "downloaded", Work = "reads", Request = "Get Blob",
    };

    /// <summary>Seeded blobs are named "seed/bNNNNNNN": the same in every execution, so seeding twice overwrites.</summary>
    public const string SeedPrefix = "seed/";

    public override string CountField => "downloadCount";

    public override CapacityModel Capacity { get; } = new BlobCapacityModel(s => s.BlobDownload!.Slices, s => s.BlobDownload!.ParallelRanges,
        BlobDownloadCapacity.Plan, s => s.BlobDownload!.RangeSizeBytes > 0
            ? $"{s.BlobDownload.BlobSizeBytes:N0}-byte blobs read in {s.BlobDownload.RangeSizeBytes:N0}-byte ranges"
            : $"{s.BlobDownload.BlobSizeBytes:N0}-byte blobs read whole",
        "ranges in flight/slice", "blob read operations");

    public override TargetService Service => TargetService.Blob;

    public override string TargetSuffix => "d";

    public override bool Seeds => true;

    public override WorkloadSpec? SectionOf(RunSpec spec) => spec.BlobDownload;

    public static string SeedBlobName(int blob) => $"{SeedPrefix}b{blob:D7}";

    /// <summary>Get Blob requests per whole-blob download.</summary>
    public static long RangesPerBlob(BlobDownloadSpec spec) => spec.RangeSizeBytes > 0 ? (spec.BlobSizeBytes + spec.RangeSizeBytes - 1) / spec.RangeSizeBytes : 1;

    /// <summary>The blobs a slice on <paramref name="targetIndex"/> reads: those seeded there (blob b is seeded by slice b mod slices, on that slice's account).</summary>
    public static int[] BlobsOn(int targetIndex, int blobCount, int slices, int targetAccounts) =>
        [.. Enumerable.Range(0, blobCount).Where(b => b % slices % targetAccounts == targetIndex)];

    protected override void Validate(BlobDownloadSpec d, SpecChecks errors)
    {
        const string p = WorkloadName + ".";
        int before = errors.Count;
        errors.Range(p + "blobCount", d.BlobCount, 1, 100_000);
        errors.Range(p + "blobSizeBytes", d.BlobSizeBytes, 1, ServiceLimits.MaxPutBlobBytes,
            "(seeding writes each blob with one Put Blob: the service's limit is 5000 MiB)");
        errors.Range(p + "rangeSizeBytes", d.RangeSizeBytes, 0, Math.Max(1, d.BlobSizeBytes), "(0 = whole blobs; a range is at most the blob)");
        errors.Range(p + "parallelRanges", d.ParallelRanges, 1, 1_024);
        errors.Range(p + "downloadCount", d.DownloadCount, 1, 1_000_000_000);
        errors.Range(p + "slices", d.Slices, 1, ServiceLimits.MaxSlices);
        errors.RunLength(d, p);
        if (errors.Count > before)
        {
            return;
        }
        if (d.RangeSizeBytes > 0 && RangesPerBlob(d) > MaxRangesPerBlob)
        {
            errors.Add(new(p + "rangeSizeBytes", SpecChecks.Num(d.RangeSizeBytes),
                $"cuts blobSizeBytes {SpecChecks.Num(d.BlobSizeBytes)} into {SpecChecks.Num(RangesPerBlob(d))} ranges, over {SpecChecks.Num(MaxRangesPerBlob)} per blob (as many as a block blob has blocks)"));
        }
        if (d.Slices > d.BlobCount)
        {
            errors.Add(new(p + "slices", SpecChecks.Num(d.Slices), $"exceeds blobCount {SpecChecks.Num(d.BlobCount)}: every slice seeds at least one blob"));
        }
        if (d.DurationSeconds == 0 && d.Slices > d.DownloadCount)
        {
            errors.Add(new(p + "slices", SpecChecks.Num(d.Slices), $"exceeds downloadCount {SpecChecks.Num(d.DownloadCount)}: every slice needs at least one download"));
        }
        else if (d.DurationSeconds == 0 && d.WarmupOperations >= d.DownloadCount / d.Slices * RangesPerBlob(d))
        {
            errors.Add(new(p + "warmupOperations", SpecChecks.Num(d.WarmupOperations),
                $"must be less than the {SpecChecks.Num(d.DownloadCount / d.Slices * RangesPerBlob(d))} Get Blob requests {(d.Slices > 1 ? "the smallest slice" : "the run")} sends, or nothing is measured"));
        }
    }

    /// <summary>Ranges one blob is read in, at most (the requests a whole-blob download may take).</summary>
    public const long MaxRangesPerBlob = ServiceLimits.MaxBlocksPerBlob;

    protected override IReadOnlyList<BlobDownloadSlicePlan> Plan(StepPlan stepPlan, BlobDownloadSpec section, ClientSettings client) =>
        [.. Enumerable.Range(0, section.Slices).Select(i => new BlobDownloadSlicePlan(stepPlan.RunId, stepPlan.StepId, stepPlan.TargetName, i,
            i % stepPlan.TargetAccounts, stepPlan.TargetAccounts, Planner.Share(section.DownloadCount, i, section.Slices), section, client, stepPlan.StartAtUtc))];

    protected override SliceHeader HeaderOf(BlobDownloadSlicePlan plan) => new(plan.RunId, plan.StepId, plan.SliceIndex, plan.StartAtUtc, plan.TargetIndex);

    protected override SliceProgress ProgressOf(SliceOrder order, BlobDownloadSlicePlan plan) =>
        new(plan.StepId, WorkloadName, plan.SliceIndex, default, 0, plan.Workload.DurationSeconds > 0 ? 0 : plan.Downloads * plan.Workload.BlobSizeBytes,
            plan.Workload.DurationSeconds, plan.StartAtUtc, default, false);

    /// <summary>Seeding's Put Blobs (SDK retries included): blob write operations, one per request.</summary>
    public override TransactionLine? SeedingLine(IReadOnlyList<SeedResult> seeds) =>
        new("seeding (Put Blob)", Phases.Seeding, BilledAs.BlobWrite, seeds.Sum(s => s.Requests)) { Failed = seeds.Sum(s => s.Failed) };

    /// <summary>Slice i writes blobs i, i + slices, … with one Put Blob each (overwriting: a second execution writes the same bytes again).</summary>
    protected override async Task<SeedResult> SeedAsync(BlobDownloadSlicePlan plan, StorageTarget target, CancellationToken ct)
    {
        var spec = plan.Workload;
        // Side-call clients: seeding is setup, and retries what the service pushes back on; every attempt is counted on the wire.
        using var clients = target.CreateSideCallClients();
        var container = clients.Blobs.GetBlobContainerClient(plan.ContainerName);
        var content = new SeedContent(spec.BlobSizeBytes);
        long written = 0, failed = 0;
        for (int b = plan.SliceIndex; b < spec.BlobCount; b += spec.Slices)
        {
            try
            {
                using var stream = content.Open();
                await container.GetBlockBlobClient(SeedBlobName(b)).UploadAsync(stream, OnePutBlob(spec), ct).ConfigureAwait(false);
                written += spec.BlobSizeBytes;
            }
            catch (Exception ex) when (OutcomeClassifier.Classify(ex, ct) is not null)
            {
                failed++;
            }
        }
        return new SeedResult(clients.BlobWire.Sent, written, failed);
    }

    /// <summary>
    /// One Put Blob for the whole blob. Left to its defaults the SDK stages a 256-MiB stream as 8-MiB blocks and a Put Block
    /// List, and Azurite reads a blob made of blocks at about a third of the rate of one written whole (BENCHMARKS.md section
    /// 13): the downloads would measure how the seed was written. The SDK uploads in one request only what is shorter than
    /// InitialTransferSize, hence the extra byte; at the service's Put Blob limit itself it still stages blocks.
    /// </summary>
    internal static BlobUploadOptions OnePutBlob(BlobDownloadSpec spec) =>
        new() { TransferOptions = new StorageTransferOptions { InitialTransferSize = spec.BlobSizeBytes + 1 } };

    protected override Task<SliceResult> RunSliceAsync(BlobDownloadSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger) =>
        BlobDownloadSlice.RunAsync(plan, target, time, ct, live, logger);

    protected override BlobDownloadVerifyOrder VerifyOrderOf(BlobDownloadSpec section, StepPlan stepPlan, IReadOnlyList<SliceResult> slices) =>
        new(stepPlan.TargetName, section.BlobCount, section.BlobSizeBytes, section.Slices, stepPlan.TargetAccounts,
            slices.Sum(s => s.Objects + s.ObjectsFailed), slices.Sum(s => s.WrongDownloads));

    /// <summary>
    /// Lists the container in every account: each seeded blob must be there at its length, and nothing else; and every
    /// download the slices checked must have matched the seed (a wrong one fails verification).
    /// </summary>
    protected override async Task<VerificationResult> VerifyAsync(BlobDownloadVerifyOrder order, IReadOnlyList<StorageTarget> targets, CancellationToken ct)
    {
        long found = 0, wrongLength = 0, missing = 0, foreign = 0, pages = 0;
        for (int t = 0; t < order.TargetAccounts; t++)
        {
            var expected = BlobsOn(t, order.BlobCount, order.Slices, order.TargetAccounts).Select(SeedBlobName).ToHashSet(StringComparer.Ordinal);
            using var clients = targets[t].CreateSideCallClients();
            var container = clients.Blobs.GetBlobContainerClient(order.ContainerName);
            try
            {
                await foreach (var item in container.GetBlobsAsync(BlobTraits.None, BlobStates.None, prefix: null, ct).ConfigureAwait(false))
                {
                    if (!expected.Remove(item.Name))
                    {
                        foreign++;
                        continue;
                    }
                    found++;
                    wrongLength += item.Properties.ContentLength == order.BlobSizeBytes ? 0 : 1;
                }
            }
            catch (RequestFailedException ex) when (ex.Status == 404)
            {
                // No container: none of its blobs is there.
            }
            missing += expected.Count;
            pages += clients.BlobWire.Sent;
        }
        bool matched = found == order.BlobCount && wrongLength == 0 && foreign == 0 && order.WrongDownloads == 0;
        string across = order.TargetAccounts > 1 ? $" across {order.TargetAccounts} accounts" : "";
        return new VerificationResult(matched, order.BlobCount, found, "blobs",
            $"{found} seeded blobs of {order.BlobCount} in container {order.ContainerName}{across}, {wrongLength} with a length other than {order.BlobSizeBytes}" +
            (missing > 0 ? $", {missing} missing" : "") + (foreign > 0 ? $", {foreign} blobs the seeding did not write" : "") +
            $"; {order.WrongDownloads} of {order.Downloads} downloads returned other bytes than were seeded")
        {
            Requests = new VerificationRequests(pages, 0, 0, 0),
        };
    }

    protected override WorkloadSummary Summarize(BlobDownloadSpec spec, IReadOnlyList<SliceResult> slices, VerificationResult verified)
    {
        string op = spec.RangeSizeBytes > 0 ? $"one Get Blob of a {spec.RangeSizeBytes} B range (x-ms-range) of a {spec.BlobSizeBytes} B blob" : $"one Get Blob of a whole {spec.BlobSizeBytes} B blob";
        var w = SummaryCalculator.Summarize(Kind,
            $"operation = {op}; latency = successful requests, from the send to the last byte; time to first byte = from the send to the answer's headers; " +
            $"throughput = bytes of whole blobs downloaded and checked against the seed ({(spec.VerifyContent ? "length and MD5" : "length")}) per second (goodput); per-second figures = bytes received",
            slices, verified);
        long goodBytes = slices.Sum(s => s.CommittedUnits);
        long planned = spec.DurationSeconds > 0 ? slices.Sum(s => s.Planned) : spec.DownloadCount;
        long downloaded = slices.Sum(s => s.Objects);
        var firstByte = LatencyHistograms.Merge(slices.Select(s => s.FirstByteHistogram).OfType<string>());
        return SummaryCalculator.Complete(w, planned, downloaded) with
        {
            Bytes = goodBytes,
            Throughput = SummaryCalculator.Rates(Kind, w.Succeeded, goodBytes, w.DurationSeconds),
            Priming = SummaryCalculator.PrimingOf(slices),
            Transactions = Transactions(slices, verified),
            StoredBytes = spec.BlobCount * spec.BlobSizeBytes,
            TimeToFirstByteMs = SummaryCalculator.Latency(firstByte),
        };
    }

    /// <summary>The step's requests by kind, and the bytes it read out (priced as data transfer when the driver is outside the account's region).</summary>
    public static IReadOnlyList<TransactionLine> Transactions(IReadOnlyList<SliceResult> slices, VerificationResult verified)
    {
        long sent = slices.Sum(s => s.Counts.Operations + s.WarmupOperations);
        var r = TransactionCounts.Sum(slices);
        var lines = new List<TransactionLine>
        {
            new("Get Blob", Phases.Run, BilledAs.BlobRead, sent) { Failed = slices.Sum(s => s.Counts.Failed) },
        };
        TransactionCounts.Add(lines, new("priming Get Blob (a range of up to 4 KiB)", Phases.Priming, BilledAs.BlobRead, r.PrimingReads));
        TransactionCounts.Add(lines, new("priming probe (Get Container Properties)", Phases.Priming, BilledAs.BlobOther, r.PrimingProbes));
        if (verified.Requests is { } v)
        {
            TransactionCounts.Add(lines, new("List Blobs pages", Phases.Verification, BilledAs.BlobListOrCreateContainer, v.Queries));
        }
        TransactionCounts.Add(lines, new("SDK retries", Phases.Run, BilledAs.BlobRead, r.Wire - sent - r.PrimingReads - r.PrimingProbes));
        long bytesOut = slices.Sum(s => s.Units + s.WarmupUnits);
        if (bytesOut > 0)
        {
            lines.Add(new TransactionLine("bytes downloaded (data transfer out of the region, when the driver is outside it)", Phases.Run, BilledAs.DataTransferOut, 0) { Bytes = bytesOut });
        }
        return lines;
    }

    protected override IEnumerable<(string Name, string Value)> Parameters(BlobDownloadSpec s) =>
    [
        ("blobCount", Invariant(s.BlobCount)),
        ("blobSizeBytes", Invariant(s.BlobSizeBytes)),
        ("rangeSizeBytes", Invariant(s.RangeSizeBytes)),
        ("parallelRanges", Invariant(s.ParallelRanges)),
        ("downloadCount", Invariant(s.DownloadCount)),
        ("slices", Invariant(s.Slices)),
        ("verifyContent", s.VerifyContent ? "true" : "false"),
        ("durationSeconds", Invariant(s.DurationSeconds)),
    ];

    private static string Invariant(IFormattable value) => value.ToString(null, CultureInfo.InvariantCulture);
}

/// <summary>One blob-download activity's share of a step.</summary>
/// <param name="ContainerName">The step's container for this workload (seeded, then read).</param>
/// <param name="TargetIndex">Which configured target account this slice seeds and reads.</param>
/// <param name="TargetAccounts">How many accounts the step spreads its slices over (which blobs are on this slice's).</param>
/// <param name="Downloads">This slice's share of downloadCount (count mode).</param>
public sealed record BlobDownloadSlicePlan(string RunId, string StepId, string ContainerName, int SliceIndex, int TargetIndex, int TargetAccounts, long Downloads,
    BlobDownloadSpec Workload, ClientSettings Client, DateTime StartAtUtc);

/// <summary>What verification checks: the seeded blobs in each account's container, and the downloads the slices found wrong.</summary>
public sealed record BlobDownloadVerifyOrder(string ContainerName, int BlobCount, long BlobSizeBytes, int Slices, int TargetAccounts, long Downloads, long WrongDownloads);
