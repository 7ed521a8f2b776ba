using StorageBench.Engine.Cost;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads.BlobUpload;

namespace StorageBench.Tests;

/// <summary>The money maths, with a price table of round numbers so every figure can be checked by hand.</summary>
[Trait("Category", "Unit")]
public class CostEstimatorTests
{
    private static readonly PriceTable Round = new()
    {
        File = "test", Currency = "EUR", Region = "nowhere", ReadOn = "2026-01-01", Source = "made up for the test",
        TableTransactionsPer10k = 1, TableStoragePerGbMonth = 730,
        BlobWriteOperationsPer10k = 2, BlobReadOperationsPer10k = 3, BlobListAndCreateContainerOperationsPer10k = 4, BlobOtherOperationsPer10k = 5,
        BlobStoragePerGbMonth = 7300, EntityGroupTransactionBilling = PriceTable.PerBatch,
    };

    /// <summary>40,000 entities in 400 batches, priming, two query pages, create and delete; 1 GB held for one hour.</summary>
    private static WorkloadSummary Table() => Workload(entities: 40_000, storedBytes: 1_000_000_000, seconds: 3600,
    [
        new("entity group transactions", Phases.Run, BilledAs.TableTransaction, 400) { Entities = 40_000, Failed = 3 },
        new("priming transactions (batch inserted, then deleted)", Phases.Priming, BilledAs.TableTransaction, 258) { Entities = 25_602 },
        new("query pages (keys only, up to 1,000 rows each)", Phases.Verification, BilledAs.TableTransaction, 40),
        new("Create Table", Phases.Setup, BilledAs.TableTransaction, 1),
        new("Delete Table", Phases.Cleanup, BilledAs.TableTransaction, 1),
    ]);

    private static WorkloadSummary Blob() => Workload(entities: null, storedBytes: 2_000_000_000, seconds: 36,
    [
        new("Put Block", Phases.Run, BilledAs.BlobWrite, 20_000),
        new("Put Block List", Phases.Run, BilledAs.BlobWrite, 10_000),
        new("priming probe (Get Container Properties)", Phases.Priming, BilledAs.BlobOther, 10_000),
        new("List Blobs pages", Phases.Verification, BilledAs.BlobListOrCreateContainer, 5_000),
        new("content reads (Get Blob)", Phases.Verification, BilledAs.BlobRead, 10_000),
        new("Delete Container", Phases.Cleanup, BilledAs.Free, 1),
    ]);

    [Fact]
    public void TableTransactionsAndStorageArePricedPerTenThousandAndPerGigabyteMonth()
    {
        var cost = CostEstimator.ForWorkload(Table(), Round);

        Assert.Equal(700, cost.BilledTransactions);
        Assert.Equal(0.07, cost.TransactionsCost, 12);         // 700 / 10,000 × 1
        Assert.Equal(1.0 / 730, cost.StorageGbMonths, 12);     // 1 GB for 1 of 730 hours
        Assert.Equal(1, cost.StorageCost, 12);                 // × 730 per GB-month
        Assert.Equal(1.07, cost.Total, 12);
        Assert.Equal(1.07 / 40_000 * 1e6, cost.PerMillionEntities!.Value, 9);
        Assert.Equal(1.07, cost.PerGigabyte!.Value, 12);
        // At scale: the writes (and what they hold) alone.
        Assert.Equal((0.04 + 1) / 40_000 * 1e6, cost.AtScalePerMillionEntities!.Value, 9);
        Assert.Equal(0.0001, cost.Lines.Single(l => l.Kind == "Create Table").Cost, 12);
    }

    [Fact]
    public void BillingBatchesPerEntityMultipliesOnlyTheEntityGroupTransactions()
    {
        var cost = CostEstimator.ForWorkload(Table(), Round with { EntityGroupTransactionBilling = PriceTable.PerEntity });

        Assert.Equal(40_000 + 25_602 + 40 + 1 + 1, cost.BilledTransactions);
        Assert.Equal(4.0, cost.Lines[0].Cost, 12);
        Assert.Equal(40_000, cost.Lines[0].Billed);
        Assert.Equal(400, cost.Lines[0].Requests);
        Assert.Equal(3, cost.Lines[0].Failed);
    }

    [Fact]
    public void BlobOperationsArePricedByTheirCategoryAndDeletesAreFree()
    {
        var cost = CostEstimator.ForWorkload(Blob(), Round);

        // Writes 30,000 × 2, other 10,000 × 5, list 5,000 × 4, reads 10,000 × 3 (per 10,000); the delete is free.
        Assert.Equal(6 + 5 + 2 + 3, cost.TransactionsCost, 12);
        Assert.Equal(0, cost.Lines.Single(l => l.BilledAs == BilledAs.Free).Cost);
        Assert.Equal(55_000, cost.BilledTransactions);
        Assert.Equal(2.0 * 36 / 3600 / 730 * 7300, cost.StorageCost, 12);   // 2 GB for 36 s
        Assert.Null(cost.PerMillionEntities);
        Assert.Equal(cost.Total / 2, cost.PerGigabyte!.Value, 12);
        Assert.Equal((6 + cost.StorageCost) / 2, cost.AtScalePerGigabyte!.Value, 12);
    }

    [Fact]
    public void TheEstimateSumsItsWorkloadsAndSaysWhatItIsAndWhatItLeavesOut()
    {
        var estimate = CostEstimator.Estimate([Table(), Blob()], Round);

        Assert.Equal(estimate.Workloads.Sum(w => w.Total), estimate.Total, 12);
        Assert.Equal(new PricesUsed("test", "EUR", "nowhere", "2026-01-01", "made up for the test", PriceTable.PerBatch), estimate.Prices);
        Assert.StartsWith("An estimate, not a bill", estimate.Note);
        Assert.Contains(estimate.Excludes, e => e.StartsWith("data transfer: egress"));
        Assert.Contains(estimate.Excludes, e => e.Contains("Application Insights"));
        Assert.Contains(estimate.Excludes, e => e.StartsWith("the results tables' own requests"));
        Assert.Contains(estimate.Counting, c => c.StartsWith("priming:"));
    }

    [Fact]
    public void BlobLinesSplitPutBlocksFromPutBlockListsAndWhatTheWireSawBeyondTheCountsIsSdkRetries()
    {
        // 2 slices: 20 requests each, 2 of them Put Block Lists; 1 of the lists and 2 blocks failed; 5 requests retried by the SDK.
        SliceResult Slice(int i) => new()
        {
            StepId = "s", Workload = "blobUpload", SliceIndex = i, Host = "h", StartedUtc = DateTime.UnixEpoch, EndedUtc = DateTime.UnixEpoch.AddSeconds(1),
            Counts = new OutcomeCounts { Operations = 18, Succeeded = 16, Throttled = 2 }, WarmupOperations = 2, Units = 0,
            LatencyHistogram = LatencyHistograms.Encode(LatencyHistograms.Create()), Timeline = Timeline.Empty,
            Requests = new SliceRequests
            {
                BlockLists = 2, BlockListsFailed = i, PrimingWrites = 3, PrimingProbes = 1, PrimingDeletes = 1, Wire = 20 + 3 + 1 + 1 + (i == 0 ? 5 : 0),
            },
        };

        var lines = BlobUploadRoom.Transactions([Slice(0), Slice(1)], VerificationResult.NotVerified("not here")).ToDictionary(l => l.Kind);

        Assert.Equal((36L, 3L), (lines["Put Block"].Requests, lines["Put Block"].Failed!.Value));
        Assert.Equal((4L, 1L), (lines["Put Block List"].Requests, lines["Put Block List"].Failed!.Value));
        Assert.Equal(6, lines["priming Put Block and Put Block List"].Requests);
        Assert.Equal(5, lines["SDK retries"].Requests);
        Assert.Equal(BilledAs.BlobWrite, lines["SDK retries"].BilledAs);
        // Verification that could not run sent nothing the counts know of: no line.
        Assert.DoesNotContain("List Blobs pages", lines.Keys);
    }

    /// <summary>A download's bytes are priced per GB at the table's data-transfer price, apart from its requests; a table without one prices them at 0 and says so.</summary>
    [Fact]
    public void DownloadedBytesArePricedPerGigabyteOfDataTransferOut()
    {
        var download = Workload(entities: null, storedBytes: 0, seconds: 1,
        [
            new("Get Blob", Phases.Run, BilledAs.BlobRead, 20_000),
            new("bytes downloaded", Phases.Run, BilledAs.DataTransferOut, 0) { Bytes = 3_000_000_000 },
        ]);

        var cost = CostEstimator.ForWorkload(download, Round with { DataTransferOutPerGb = 0.5 });

        var bytes = cost.Lines.Single(l => l.BilledAs == BilledAs.DataTransferOut);
        Assert.Equal(1.5, bytes.Cost, 12);                      // 3 GB × 0.5
        Assert.Equal(0, bytes.Billed);
        Assert.Equal(20_000, cost.BilledTransactions);
        Assert.Equal(6 + 1.5, cost.Total, 12);                  // 20,000 reads at 3 per 10,000, and the bytes
        var unpriced = CostEstimator.ForWorkload(download, Round).Lines.Single(l => l.BilledAs == BilledAs.DataTransferOut);
        Assert.Equal(0, unpriced.Cost);
        Assert.Null(unpriced.PricePerGb);
    }

    private static WorkloadSummary Workload(long? entities, long storedBytes, double seconds, TransactionLine[] lines)
    {
        var none = new LatencySummary(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        return new WorkloadSummary
        {
            Workload = entities is null ? "blobUpload" : "tableInsert", Measures = "", Slices = 1, Operations = 0, Succeeded = 0, Failed = 0, Throttled = 0,
            TimedOut = 0, ServerErrors = 0, ClientErrors = 0, NetworkErrors = 0, Entities = entities, Stored = entities ?? 0, DurationSeconds = seconds,
            Throughput = new Throughput(0, null, null, null, null), PeakUnit = "", LatencyMs = none, Verified = VerificationResult.NotVerified(""),
            LatencyHistogram = "", Transactions = lines, StoredBytes = storedBytes,
        };
    }
}
