
namespace StorageBench.Engine.Cost;

/// <summary>Prices the counted requests of a run's workloads with a price table. Pure: the same counts and prices give the same money.</summary>
public static class CostEstimator
{
    /// <summary>Azure prorates capacity over the month; 730 hours is its month.</summary>
    public const double HoursPerMonth = 730;

    public static readonly IReadOnlyList<string> Counting =
    [
        "run: the slices' own counts: every request of the measured window and its warm-up, failed and throttled ones included, each retry of a block (blockRetries) too; \"failed\" is of the measured window",
        "priming: counted by each slice's primer: one probe, then per primed loop and round the workload's own request, small (one entity, or 4 KiB of a blob), and for a write what leaves nothing behind (a delete, a commit); each workload's priming lines say which requests",
        "verification, setup and cleanup: counted on the wire by a counter in the storage client's pipeline, each SDK retry included",
        "SDK retries: what that wire counter saw beyond the slices' own counts (only with client.sdkRetries)",
        "billing: Azure bills a request once it is authenticated, failed and throttled ones included; one that never reached the service (a network error, some client timeouts) is counted here and may not be billed",
    ];

    public static readonly IReadOnlyList<string> Excludes =
    [
        "data transfer: egress out of the region (the writes are ingress; content reads by a driver outside the region are egress) and geo-replication transfer of GRS accounts; except the bytes a download workload reads out (a transaction line with bytes), priced at the table's dataTransferOutPerGb as if its driver were outside the account's region (within it Azure charges none)",
        "compute: the Function App (Flex Consumption executions and GB-seconds) or the machine running the CLI",
        "the Durable Functions host's own queue, table and blob traffic on its host storage account",
        "Application Insights and Log Analytics ingestion",
        "the results tables' own requests: a row per slice, step and run, reading them back, and every slice's cancel poll about once a second",
        "cleaning up earlier runs' leftovers, taxes, discounts, free grants and reserved capacity",
    ];

    public static CostEstimate Estimate(IEnumerable<WorkloadSummary> workloads, PriceTable prices)
    {
        var costs = workloads.Select(w => ForWorkload(w, prices)).ToList();
        return new CostEstimate
        {
            Note = $"An estimate, not a bill: the requests this run's workloads sent, counted by kind, at the prices of {prices.File}: " +
                $"{prices.Currency}, region {prices.Region}, read {prices.ReadOn}. Prices differ by region, redundancy, tier and agreement: check the source.",
            Prices = new PricesUsed(prices.File, prices.Currency, prices.Region, prices.ReadOn, prices.Source, prices.EntityGroupTransactionBilling),
            Workloads = costs,
            Total = costs.Sum(c => c.Total),
            Counting = Counting,
            Excludes = Excludes,
        };
    }

    public static WorkloadCost ForWorkload(WorkloadSummary w, PriceTable prices)
    {
        bool perEntity = prices.EntityGroupTransactionBilling == PriceTable.PerEntity;
        var lines = w.Transactions.Select(t =>
        {
            long billed = t.BilledAs == BilledAs.Free ? 0 : perEntity && t.Entities is { } entities ? entities : t.Requests;
            double price = prices.Per10k(t.BilledAs);
            if (t.Bytes is { } bytes)
            {
                return new CostLine(t.Kind, t.Phase, t.BilledAs, t.Requests, 0, 0, bytes / 1e9 * (prices.DataTransferOutPerGb ?? 0))
                {
                    Bytes = bytes, PricePerGb = prices.DataTransferOutPerGb,
                };
            }
            return new CostLine(t.Kind, t.Phase, t.BilledAs, t.Requests, billed, price, billed / 10_000.0 * price) { Failed = t.Failed };
        }).ToList();
        bool table = w.Entities is not null;
        double gbMonths = w.StoredBytes / 1e9 * (w.DurationSeconds / 3600 / HoursPerMonth);
        double storage = gbMonths * (table ? prices.TableStoragePerGbMonth : prices.BlobStoragePerGbMonth);
        double transactions = lines.Sum(l => l.Cost);
        double total = transactions + storage;
        double atScale = lines.Where(l => l.Phase == Phases.Run).Sum(l => l.Cost) + storage;
        double gigabytes = w.StoredBytes / 1e9;
        return new WorkloadCost
        {
            Workload = w.Workload,
            StepParameter = w.StepParameter,
            StepValue = w.StepValue,
            Lines = lines,
            BilledTransactions = lines.Sum(l => l.Billed),
            TransactionsCost = transactions,
            StorageGbMonths = gbMonths,
            StorageCost = storage,
            Total = total,
            PerMillionEntities = table && w.Stored > 0 ? total / w.Stored * 1e6 : null,
            AtScalePerMillionEntities = table && w.Stored > 0 ? atScale / w.Stored * 1e6 : null,
            PerGigabyte = gigabytes > 0 ? total / gigabytes : null,
            AtScalePerGigabyte = gigabytes > 0 ? atScale / gigabytes : null,
        };
    }
}
