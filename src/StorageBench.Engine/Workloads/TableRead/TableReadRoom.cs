using System.Globalization;
using Azure;
using Azure.Data.Tables;

namespace StorageBench.Engine.Workloads.TableRead;

/// <summary>One tableRead slice's share of a step: its partitions (it seeds and reads them), its reads and its share of the rate.</summary>
/// <param name="ReadCount">This slice's share of the reads (count mode).</param>
/// <param name="OperationsPerSecond">This slice's share of the target rate (reads started per second); 0 = closed loop.</param>
public sealed record TableReadSlicePlan(
    string RunId,
    string StepId,
    string TableName,
    int SliceIndex,
    PartitionRange Partitions,
    long ReadCount,
    double OperationsPerSecond,
    TableReadSpec Workload,
    ClientSettings Client,
    DateTime StartAtUtc,
    int TargetIndex = 0);

/// <summary>What tableRead's verification needs: its table, the entities seeded, and what the slices' reads met.</summary>
public sealed record TableReadVerifyOrder(string TableName, long EntityCount, long Mismatches, long Reads, long MatchedReads);

/// <summary>
/// tableRead: the read side of a partition design. Each slice owns partitions (p mod slices = its index), seeds their
/// entities outside the measured window (<see cref="SeededEntities"/>: upserts in entity group transactions, safe to run
/// twice), then reads them — point reads by PartitionKey and RowKey, or partition queries on the Int64 property
/// Sequence written with the <c>L</c> literal — closed loop or at a target rate, on the driver the spec chose. One
/// operation is one request (a point read or a query page) and its units are the entities it returned; every returned
/// entity is checked against what was seeded, and a wrong or missing one fails verification.
/// </summary>
public sealed class TableReadRoom : Workload<TableReadSpec, TableReadSlicePlan, TableReadVerifyOrder>
{
    public static TableReadRoom Instance { get; } = new();

    public override WorkloadKind Kind { get; } = WorkloadKind.CountingEntities("tableRead", "TableRead") with { Done = "read", StoredWord = "read", Work = "reads" };

    /// <summary>The most entities one query page returns (the service's limit, and $top's).</summary>
    public const int MaxPageEntities = 1_000;

    /// <summary>Seeding's entity group transactions in flight per slice.</summary>
    private const int SeedingConcurrency = 8;

    public override string CountField => "readCount";

    public override CapacityModel Capacity { get; } = new TableReadCapacity();

    public override TargetService Service => TargetService.Table;

    /// <summary>Its own table: what it seeds never meets tableInsert's count.</summary>
    public override string TargetSuffix => "r";

    public override WorkloadSpec? SectionOf(RunSpec spec) => spec.TableRead;

    protected override void Validate(TableReadSpec section, SpecChecks errors)
    {
        var (t, checks) = (section, errors);
        const string p = "tableRead.";
        int before = checks.Count;
        checks.Range(p + "entityCount", t.EntityCount, 1, 1_000_000_000);
        checks.Range(p + "entitySizeBytes", t.EntitySizeBytes, 1, ServiceLimits.MaxEntityPayloadBytes,
            $"(1 MiB entity limit less {ServiceLimits.EntityOverheadBytes} bytes for keys and property names)");
        checks.Range(p + "partitionCount", t.PartitionCount, 1, 100_000);
        if (t.Operation is not (TableReadSpec.Point or TableReadSpec.Query))
        {
            checks.Add(new(p + "operation", SpecChecks.Quote(t.Operation), "must be \"point\" (Get Entity by PartitionKey and RowKey) or \"query\" (a partition query on the Int64 property Sequence)"));
        }
        checks.Range(p + "queryEntities", t.QueryEntities, 1, 1_000_000);
        checks.Range(p + "readCount", t.ReadCount, 1, 1_000_000_000);
        checks.Range(p + "concurrency", t.Concurrency, 1, 1_024);
        checks.Range(p + "slices", t.Slices, 1, ServiceLimits.MaxSlices);
        checks.Range(p + "targetOperationsPerSecond", t.TargetOperationsPerSecond, 0, 1_000_000, "(0 = closed loop)");
        checks.RunLength(t, p);
        if (checks.Count > before)
        {
            return;
        }
        if (t.PartitionCount > t.EntityCount)
        {
            checks.Add(new(p + "partitionCount", SpecChecks.Num(t.PartitionCount), $"exceeds entityCount {SpecChecks.Num(t.EntityCount)}: every partition needs at least one entity to read"));
        }
        if (t.Slices > t.PartitionCount)
        {
            checks.Add(new(p + "slices", SpecChecks.Num(t.Slices), $"exceeds partitionCount {SpecChecks.Num(t.PartitionCount)}: each slice seeds and reads partitions of its own"));
        }
        long fewestPerPartition = t.EntityCount / t.PartitionCount;
        if (t.Operation == TableReadSpec.Query && t.QueryEntities > fewestPerPartition)
        {
            checks.Add(new(p + "queryEntities", SpecChecks.Num(t.QueryEntities),
                $"exceeds the {SpecChecks.Num(fewestPerPartition)} entities the smallest partition holds (entityCount {SpecChecks.Num(t.EntityCount)} over partitionCount {SpecChecks.Num(t.PartitionCount)}): a query reads one partition"));
        }
        if (t.DurationSeconds == 0)
        {
            long fewest = t.ReadCount / t.Slices;
            if (fewest == 0)
            {
                checks.Add(new(p + "slices", SpecChecks.Num(t.Slices), $"exceeds readCount {SpecChecks.Num(t.ReadCount)}: every slice needs at least one read"));
            }
            else if (t.WarmupOperations >= fewest)
            {
                checks.Add(new(p + "warmupOperations", SpecChecks.Num(t.WarmupOperations),
                    $"must be less than the {SpecChecks.Num(fewest)} reads {(t.Slices > 1 ? "the smallest slice" : "the run")} makes (readCount {SpecChecks.Num(t.ReadCount)}), or nothing is measured"));
            }
        }
    }

    protected override IReadOnlyList<TableReadSlicePlan> Plan(StepPlan stepPlan, TableReadSpec section, ClientSettings client) =>
        [.. Enumerable.Range(0, section.Slices).Select(i => new TableReadSlicePlan(stepPlan.RunId, stepPlan.StepId, stepPlan.TargetName, i,
            Planner.PartitionsOf(i, section.Slices, section.PartitionCount), Planner.Share(section.ReadCount, i, section.Slices),
            section.TargetOperationsPerSecond / section.Slices, section, client, stepPlan.StartAtUtc, i % stepPlan.TargetAccounts))];

    protected override SliceHeader HeaderOf(TableReadSlicePlan plan) => new(plan.RunId, plan.StepId, plan.SliceIndex, plan.StartAtUtc, plan.TargetIndex);

    protected override SliceProgress ProgressOf(SliceOrder order, TableReadSlicePlan plan) =>
        new(plan.StepId, Name, plan.SliceIndex, default, 0,
            plan.Workload.DurationSeconds > 0 ? 0 : plan.ReadCount * EntitiesPerRead(plan.Workload), plan.Workload.DurationSeconds, plan.StartAtUtc, default, false);

    private static int EntitiesPerRead(TableReadSpec spec) => spec.Operation == TableReadSpec.Query ? spec.QueryEntities : 1;

    /// <summary>The partitions' numbers a slice owns.</summary>
    internal static IEnumerable<int> PartitionsOf(PartitionRange range) => Enumerable.Range(0, range.Count).Select(k => range.First + k * range.Stride);

    public override bool Seeds => true;

    /// <summary>
    /// Upserts every entity of the slice's partitions, in entity group transactions of up to 100 (fewer when large
    /// entities would pass the 4 MiB transaction limit), on the side-call clients (SDK retries on): seeding is not
    /// measured, and an upsert written twice leaves the same entity.
    /// </summary>
    protected override async Task<SeedResult> SeedAsync(TableReadSlicePlan plan, StorageTarget target, CancellationToken ct)
    {
        var spec = plan.Workload;
        var seeded = new SeededEntities(spec);
        using var clients = target.CreateSideCallClients();
        var table = clients.Tables.GetTableClient(plan.TableName);
        int batch = (int)Math.Clamp(ServiceLimits.MaxTransactionPayloadBytes / 2 / ServiceLimits.EncodedEntityBytes(spec.EntitySizeBytes), 1, ServiceLimits.MaxBatchSize);
        var batches = PartitionsOf(plan.Partitions).SelectMany(p =>
        {
            var (first, count) = seeded.RangeOf(p);
            return Enumerable.Range(0, (int)((count + batch - 1) / batch)).Select(b => (Partition: p, First: first + (long)b * batch, Count: (int)Math.Min(batch, count - (long)b * batch)));
        });
        long units = 0, failed = 0;
        await Parallel.ForEachAsync(batches, new ParallelOptions { MaxDegreeOfParallelism = SeedingConcurrency, CancellationToken = ct }, async (b, token) =>
        {
            var actions = Enumerable.Range(0, b.Count).Select(k => new TableTransactionAction(TableTransactionActionType.UpsertReplace, seeded.NewEntity(b.First + k, b.Partition)));
            try
            {
                await table.SubmitTransactionAsync(actions, token).ConfigureAwait(false);
                Interlocked.Add(ref units, b.Count);
            }
            catch (Exception ex) when (OutcomeClassifier.Classify(ex, token) is not null)
            {
                // Counted: the reads of what is missing count as mismatches, and verification's count fails.
                Interlocked.Increment(ref failed);
            }
        }).ConfigureAwait(false);
        return new SeedResult(clients.TableWire.Sent, units, failed);
    }

    /// <summary>Seeding's entity group transactions of upserts (SDK retries included): table transactions, one per request.</summary>
    public override TransactionLine? SeedingLine(IReadOnlyList<SeedResult> seeds) =>
        new("seeding (entity group transactions of upserts)", Phases.Seeding, BilledAs.TableTransaction, seeds.Sum(s => s.Requests))
        {
            Entities = seeds.Sum(s => s.Units), Failed = seeds.Sum(s => s.Failed),
        };

    protected override Task<SliceResult> RunSliceAsync(TableReadSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger) =>
        TableReadSlice.RunAsync(plan, target, time, ct, live, logger);

    protected override TableReadVerifyOrder VerifyOrderOf(TableReadSpec section, StepPlan stepPlan, IReadOnlyList<SliceResult> slices) =>
        new(stepPlan.TargetName, section.EntityCount, slices.Sum(s => s.Mismatches), slices.Sum(s => s.Planned), slices.Sum(s => s.MatchedReads));

    /// <summary>
    /// Counts the seeded entities in the table (keys only) in every target account, and fails when that is not
    /// entityCount, when the table holds anything else, or when a read returned something other than what was seeded.
    /// </summary>
    protected override async Task<VerificationResult> VerifyAsync(TableReadVerifyOrder order, IReadOnlyList<StorageTarget> targets, CancellationToken ct)
    {
        long seeded = 0, foreign = 0, queries = 0;
        foreach (var target in targets)
        {
            using var clients = target.CreateSideCallClients();
            var table = clients.Tables.GetTableClient(order.TableName);
            try
            {
                await foreach (var page in table.QueryAsync<TableEntity>(select: ["PartitionKey", "RowKey"], maxPerPage: MaxPageEntities, cancellationToken: ct).AsPages())
                {
                    foreach (var e in page.Values)
                    {
                        bool ours = e.RowKey.StartsWith(SeededEntities.RowKeyPrefix, StringComparison.Ordinal);
                        seeded += ours ? 1 : 0;
                        foreign += ours ? 0 : 1;
                    }
                }
            }
            catch (RequestFailedException ex) when (ex.Status == 404)
            {
                // No table: nothing was seeded there.
            }
            queries += clients.TableWire.Sent;
        }
        string across = targets.Count > 1 ? $" across {targets.Count} accounts" : "";
        string others = foreign > 0 ? $"; {foreign} entities that are not seeded ones" : "";
        return new VerificationResult(seeded == order.EntityCount && foreign == 0 && order.Mismatches == 0, order.EntityCount, seeded, "entities",
            $"seeded entities in table {order.TableName}{across}{others}; {order.Mismatches} entities read differed from what was seeded or were missing; " +
            $"{order.MatchedReads} of {order.Reads} reads returned exactly what was seeded")
        {
            Requests = new VerificationRequests(queries, 0, 0, 0),
        };
    }

    protected override WorkloadSummary Summarize(TableReadSpec section, IReadOnlyList<SliceResult> slices, VerificationResult verified)
    {
        var spec = section;
        bool query = spec.Operation == TableReadSpec.Query;
        string op = query
            ? $"one query page (a partition query for {spec.QueryEntities} entities by a range of the Int64 property Sequence, pages of up to {MaxPageEntities})"
            : "one point read (Get Entity by PartitionKey and RowKey)";
        string latency = spec.TargetOperationsPerSecond > 0
            ? "latency = successful requests, from each read's slot in the open loop's schedule (a query's later pages from their send); service time = from the send"
            : "latency = successful requests";
        var w = SummaryCalculator.Summarize(Kind, $"operation = {op} ({spec.EntitySizeBytes} B entities); units = entities returned; {latency}",
            slices, verified, spec.EntitySizeBytes);
        long planned = spec.DurationSeconds > 0 ? slices.Sum(s => s.Planned) : spec.ReadCount;
        return SummaryCalculator.Complete(w, planned, slices.Sum(s => s.MatchedReads)) with
        {
            Priming = SummaryCalculator.PrimingOf(slices),
            Transactions = Transactions(query, slices, verified),
            StoredBytes = spec.EntityCount * spec.EntitySizeBytes,
            EntitiesPerQueryPage = query && w.Succeeded > 0 ? (double)(w.Entities ?? 0) / w.Succeeded : null,
            Mismatches = slices.Sum(s => s.Mismatches),
        };
    }

    /// <summary>Every request the slices sent, by kind: all billed as table transactions (a read is one per request, a query one per page).</summary>
    private static IReadOnlyList<TransactionLine> Transactions(bool query, IReadOnlyList<SliceResult> slices, VerificationResult verified)
    {
        long sent = slices.Sum(s => s.Counts.Operations + s.WarmupOperations);
        var r = TransactionCounts.Sum(slices);
        var lines = new List<TransactionLine>
        {
            new(query ? "query pages" : "point reads", Phases.Run, BilledAs.TableTransaction, sent) { Failed = slices.Sum(s => s.Counts.Failed) },
        };
        TransactionCounts.Add(lines, new(query ? "priming query pages and probe" : "priming point reads and probe", Phases.Priming, BilledAs.TableTransaction,
            r.PrimingReads + r.PrimingProbes));
        if (verified.Requests is { } v)
        {
            TransactionCounts.Add(lines, new("query pages (keys only, up to 1,000 rows each)", Phases.Verification, BilledAs.TableTransaction, v.Queries));
        }
        TransactionCounts.Add(lines, new("SDK retries", Phases.Run, BilledAs.TableTransaction, r.Wire - sent - r.PrimingReads - r.PrimingProbes));
        return lines;
    }

    protected override IEnumerable<(string Name, string Value)> Parameters(TableReadSpec section)
    {
        var t = section;
        static string I(double x) => x.ToString(CultureInfo.InvariantCulture);
        yield return ("operation", t.Operation);
        yield return ("entityCount", I(t.EntityCount));
        yield return ("entitySizeBytes", I(t.EntitySizeBytes));
        yield return ("partitionCount", I(t.PartitionCount));
        if (t.Operation == TableReadSpec.Query)
        {
            yield return ("queryEntities", I(t.QueryEntities));
        }
        yield return ("concurrency", I(t.Concurrency));
        yield return ("slices", I(t.Slices));
        yield return ("targetOperationsPerSecond", I(t.TargetOperationsPerSecond));
    }
}
