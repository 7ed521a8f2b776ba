using System.Diagnostics;
using System.Globalization;
using Azure;
using Azure.Data.Tables;
using Microsoft.Extensions.Logging;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;

namespace StorageBench.Engine.Workloads;

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

    public static readonly WorkloadKind TableReadKind = new("tableRead", "entities", "entity", "#,0.0", "entities", 1, "entitiesPerSecond")
    {
        ColumnPrefix = "TableRead",
        RateOf = t => t.EntitiesPerSecond,
    };

    /// <summary>The most entities one query page returns (the service's limit, and $top's).</summary>
    public const int MaxPageEntities = 1_000;

    /// <summary>Seeding's entity group transactions in flight per slice.</summary>
    private const int SeedingConcurrency = 8;

    public override WorkloadKind Kind => TableReadKind;

    public override string CountField => "readCount";

    public override Capacity.CapacityModel Capacity { get; } = new Capacity.TableReadCapacity();

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
    private static IEnumerable<int> PartitionsOf(PartitionRange range) => Enumerable.Range(0, range.Count).Select(k => range.First + k * range.Stride);

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

    protected override async Task<SliceResult> RunSliceAsync(TableReadSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger)
    {
        var spec = plan.Workload;
        var seeded = new SeededEntities(spec);
        using var clients = target.CreateClients(plan.Client);
        var table = clients.Tables.GetTableClient(plan.TableName);
        string attempt = SliceResult.NewAttemptId();
        int loopCount = spec.DurationSeconds > 0 ? spec.Concurrency : (int)Math.Min(spec.Concurrency, plan.ReadCount);
        var reads = new SliceReads(plan, seeded);
        ITableReads NewReads() => ITableReads.For(plan.Client, clients, table, seeded);
        var priming = await PrimeAsync(table, plan, reads, loopCount, time, NewReads, logger).ConfigureAwait(false);

        var clock = await SliceClock.StartAtAsync(plan.StartAtUtc, time, ct).ConfigureAwait(false);
        double cpuAtStart = SliceResult.ProcessCpuSeconds();
        var schedule = new OperationSchedule(spec, plan.ReadCount, plan.OperationsPerSecond, clock.StartTimestamp);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var breaker = new UnreachableBreaker(loopCount, stop, clients.Tables.Uri);
        var workers = new WorkerRecorder[loopCount];
        var tallies = new ReadTally[loopCount];
        var loops = new Task[loopCount];
        for (int w = 0; w < loopCount; w++)
        {
            var recorder = workers[w] = clock.NewRecorder(openLoop: schedule.IsOpenLoop);
            var tally = tallies[w] = new ReadTally();
            loops[w] = Task.Run(() => WorkerLoopAsync(reads, NewReads, schedule, recorder, tally, breaker, stop.Token), CancellationToken.None);
        }
        live?.Watch(workers);
        await Task.WhenAll(loops).ConfigureAwait(false);
        return SliceResult.FromWorkers(plan.StepId, attempt, Name, plan.SliceIndex, plan.TargetIndex, cpuAtStart, workers,
            requests: priming with { Wire = clients.TableWire.Sent }) with
        {
            StartLagSeconds = clock.LagSeconds(plan.StartAtUtc),
            Canceled = ct.IsCancellationRequested,
            StopReason = breaker.Reason,
            Planned = spec.DurationSeconds > 0 ? tallies.Sum(t => t.Reads) : plan.ReadCount,
            DroppedOperations = schedule.Dropped(),
            Mismatches = tallies.Sum(t => t.Mismatches),
            MatchedReads = tallies.Sum(t => t.Matched),
        };
    }

    /// <summary>
    /// Untimed, before the start barrier: one probe (a point read of a key never seeded, answered 404), then
    /// <c>client.primeRounds</c> rounds on every in-flight loop (up to 16) of the workload's own read through the measured
    /// driver, a query for one entity (<see cref="Priming.Entities"/>) — reads leave nothing behind. Rounds stop when the start instant comes near. Counted for cost.
    /// </summary>
    private static async Task<SliceRequests> PrimeAsync(TableClient table, TableReadSlicePlan plan, SliceReads reads, int loops, TimeProvider time,
        Func<ITableReads> newReads, ILogger? logger)
    {
        var tally = new PrimingTally(logger, plan.SliceIndex);
        await tally.Quietly(table.GetEntityIfExistsAsync<TableEntity>(plan.Partitions.KeyOf(0), $"probe-{plan.SliceIndex:D3}", select: ["PartitionKey"])).ConfigureAwait(false);
        long[] sent = await Task.WhenAll(Enumerable.Range(0, plan.Client.PrimeRounds > 0 ? Math.Min(loops, Priming.MaxLoops) : 0).Select(loop => Task.Run(async () =>
        {
            using var driver = newReads();
            long requests = 0;
            var lastRound = TimeSpan.Zero;
            for (int round = 0; round < plan.Client.PrimeRounds && Priming.HasTime(plan.StartAtUtc, time, lastRound); round++)
            {
                long began = time.GetTimestamp();
                // Reads far from the measured ones' indexes (which start at 0): the same kind of request, other entities.
                reads.Prepare(driver, long.MaxValue / 2 - loop * 1_000L - round, Priming.Entities);
                bool more = true;
                while (more)
                {
                    requests++;
                    var page = driver.SendAsync();
                    await tally.Quietly(page).ConfigureAwait(false);
                    more = page.IsCompletedSuccessfully && page.Result.More;
                }
                lastRound = time.GetElapsedTime(began);
            }
            return requests;
        })));
        return tally.AddTo(new SliceRequests { PrimingProbes = 1, PrimingReads = sent.Sum() });
    }

    private static async Task WorkerLoopAsync(SliceReads reads, Func<ITableReads> newReads, OperationSchedule schedule, WorkerRecorder recorder, ReadTally tally,
        UnreachableBreaker breaker, CancellationToken ct)
    {
        using var driver = newReads();
        while (!ct.IsCancellationRequested && schedule.TryNext(out long read, out long due))
        {
            long expected = reads.Prepare(driver, read);
            if (!await OperationSchedule.WaitUntilAsync(due, ct).ConfigureAwait(false))
            {
                break;
            }
            tally.Reads++;
            long returned = 0, wrong = 0;
            bool first = true, more = true, failed = false;
            // A query's later pages go out as the previous one returns: only its first page has a slot in the schedule.
            while (more && (first || !ct.IsCancellationRequested))
            {
                // As tableInsert's loop: latency from the earlier of the slot and the send, service time from the send.
                long start = Stopwatch.GetTimestamp();
                Outcome outcome;
                var answer = default(ReadAnswer);
                try
                {
                    // Not canceled with ct: a request in flight finishes and is counted.
                    answer = await driver.SendAsync().ConfigureAwait(false);
                    outcome = Outcome.Succeeded;
                }
                catch (Exception ex) when (OutcomeClassifier.Classify(ex, CancellationToken.None) is { } classified)
                {
                    outcome = classified;
                    // A point read of a seeded entity answered 404: storage does not hold what was seeded.
                    wrong += ex is RequestFailedException { Status: 404 } && !reads.IsQuery ? 1 : 0;
                }
                recorder.Record(outcome, start, answer.Entities, schedule.IsWarmup(read, start), first ? due : start);
                breaker.Observe(outcome);
                failed |= outcome != Outcome.Succeeded;
                returned += answer.Entities;
                wrong += answer.Wrong;
                more = outcome == Outcome.Succeeded && answer.More;
                first = false;
            }
            bool whole = !failed && !more;
            // A query that ended with fewer entities than its range holds missed some.
            wrong += whole ? Math.Max(0, expected - returned) : 0;
            tally.Mismatches += wrong;
            tally.Matched += whole && wrong == 0 && returned == expected ? 1 : 0;
        }
    }

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
        var w = SummaryCalculator.Summarize(Name, $"operation = {op} ({spec.EntitySizeBytes} B entities); units = entities returned; {latency}",
            slices, verified, unitsAreEntities: true, entitySizeBytes: spec.EntitySizeBytes);
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

    /// <summary>What one worker loop's reads met; summed by the slice.</summary>
    private sealed class ReadTally
    {
        public long Reads, Mismatches, Matched;
    }

    /// <summary>Which entities a slice's read r asks for: deterministic, spread over the slice's partitions and their entities.</summary>
    private sealed class SliceReads(TableReadSlicePlan plan, SeededEntities seeded)
    {
        private readonly (string Key, long First, long Count)[] _partitions =
            [.. PartitionsOf(plan.Partitions).Select(p => (Planner.PartitionKey(p), seeded.RangeOf(p).First, seeded.RangeOf(p).Count))];

        public bool IsQuery { get; } = plan.Workload.Operation == TableReadSpec.Query;

        /// <summary>Prepares read r on the driver (a query for at most <paramref name="most"/> entities); returns the entities it must return.</summary>
        public long Prepare(ITableReads driver, long r, int most = int.MaxValue)
        {
            var (key, first, count) = _partitions[r % _partitions.Length];
            ulong mix = Mix((ulong)r ^ ((ulong)plan.SliceIndex << 48));
            if (!IsQuery)
            {
                driver.PreparePoint(key, first + (long)(mix % (ulong)count));
                return 1;
            }
            int q = Math.Min(plan.Workload.QueryEntities, most);
            long lo = first + (long)(mix % (ulong)(count - q + 1));
            driver.PrepareQuery(key, lo, lo + q, Math.Min(q, MaxPageEntities));
            return q;
        }

        /// <summary>SplitMix64's finalizer: consecutive reads land on scattered entities.</summary>
        private static ulong Mix(ulong x)
        {
            x += 0x9E3779B97F4A7C15UL;
            x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
            x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
            return x ^ (x >> 31);
        }
    }
}
