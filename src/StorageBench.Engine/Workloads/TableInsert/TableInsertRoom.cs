
namespace StorageBench.Engine.Workloads.TableInsert;

/// <summary>
/// The table insert's room: entity group transactions (or single inserts) into the step's table — its rules, its plan
/// (partitions shared or owned per slice), its loop (<see cref="TableInsertSlice"/>), its ground truth (every accepted
/// attempt's entity counted in storage), its figures in entities per second and its request lines.
/// </summary>
public sealed class TableInsertRoom : Workload<TableInsertSpec, TableSlicePlan, VerifyTableInput>
{
    public static TableInsertRoom Instance { get; } = new();

    public override WorkloadKind Kind { get; } = WorkloadKind.CountingEntities("tableInsert", "Table") with { PlannedUnit = "entities" };

    public override string CountField => "entityCount";

    public override TargetService Service => TargetService.Table;

    public override WorkloadSpec? SectionOf(RunSpec spec) => spec.TableInsert;

    public override CapacityModel Capacity { get; } = new TableInsertCapacity();

    protected override IReadOnlyList<TableSlicePlan> Plan(StepPlan stepPlan, TableInsertSpec section, ClientSettings client) =>
        PlanSlices(stepPlan.RunId, stepPlan.StepId, stepPlan.TargetName, section, client, stepPlan.StartAtUtc, stepPlan.TargetAccounts);

    /// <param name="targetAccounts">Configured target accounts: slice i writes to account i mod this.</param>
    public static IReadOnlyList<TableSlicePlan> PlanSlices(string runId, string stepId, string tableName, TableInsertSpec spec, ClientSettings client,
        DateTime startAtUtc, int targetAccounts = 1)
    {
        var slices = new TableSlicePlan[spec.Slices];
        for (int i = 0; i < spec.Slices; i++)
        {
            slices[i] = new TableSlicePlan(runId, stepId, tableName, i, Planner.PartitionsOf(i, spec.Slices, spec.PartitionCount),
                Planner.Share(spec.EntityCount, i, spec.Slices), spec.TargetOperationsPerSecond / spec.Slices, spec, client, startAtUtc, i % targetAccounts);
        }
        return slices;
    }

    protected override SliceHeader HeaderOf(TableSlicePlan plan) => new(plan.RunId, plan.StepId, plan.SliceIndex, plan.StartAtUtc, plan.TargetIndex);

    protected override SliceProgress ProgressOf(SliceOrder order, TableSlicePlan plan) => new(plan.StepId, Name, plan.SliceIndex, default, 0,
        plan.Workload.DurationSeconds > 0 ? 0 : plan.EntityCount, plan.Workload.DurationSeconds, plan.StartAtUtc, default, false);

    protected override Task<SliceResult> RunSliceAsync(TableSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger) =>
        TableInsertSlice.RunAsync(plan, target, time, ct, live, logger);

    protected override VerifyTableInput VerifyOrderOf(TableInsertSpec section, StepPlan stepPlan, IReadOnlyList<SliceResult> slices) =>
        new(stepPlan.TargetName, Attempts(slices), slices.Sum(s => s.Units + s.WarmupUnits));

    protected override Task<VerificationResult> VerifyAsync(VerifyTableInput order, IReadOnlyList<StorageTarget> targets, CancellationToken ct) =>
        TableInsertGroundTruth.VerifyTableAsync(targets, order.TableName, order.AcceptedAttempts, order.ReportedEntities, ct);

    protected override WorkloadSummary Summarize(TableInsertSpec section, IReadOnlyList<SliceResult> slices, VerificationResult verified) =>
        SummarizeSlices(section, slices, verified);

    public static WorkloadSummary SummarizeSlices(TableInsertSpec spec, IReadOnlyList<SliceResult> slices, VerificationResult verified)
    {
        string op = spec.BatchSize == 1 ? "single-entity insert" : $"entity group transaction of up to {spec.BatchSize} entities";
        string latency = spec.TargetOperationsPerSecond > 0
            ? "latency = successful requests, from each one's slot in the open loop's schedule (from its send if that was earlier); service time = from the send"
            : "latency = successful requests";
        var w = SummaryCalculator.Summarize(Instance.Kind, $"operation = one {op} ({spec.EntitySizeBytes} B entities); {latency}",
            slices, verified, spec.EntitySizeBytes);
        long planned = spec.DurationSeconds > 0 ? slices.Sum(s => s.Planned) : spec.EntityCount;
        long stored = slices.Sum(s => s.Units + s.WarmupUnits);
        return SummaryCalculator.Complete(w, planned, stored) with
        {
            Priming = SummaryCalculator.PrimingOf(slices),
            Transactions = Transactions(spec, slices, verified),
            StoredBytes = stored * spec.EntitySizeBytes,
        };
    }

    /// <summary>Its requests by kind, as counted (<see cref="TransactionCounts"/>): what the cost estimate prices.</summary>
    private static IReadOnlyList<TransactionLine> Transactions(TableInsertSpec spec, IReadOnlyList<SliceResult> slices, VerificationResult verified)
    {
        bool batched = spec.BatchSize > 1;
        long writes = slices.Sum(s => s.Counts.Operations + s.WarmupOperations);
        var r = TransactionCounts.Sum(slices);
        var lines = new List<TransactionLine>
        {
            new(batched ? "entity group transactions" : "single-entity inserts", Phases.Run, BilledAs.TableTransaction, writes)
            {
                Entities = batched ? slices.Sum(s => s.UnitsAttempted) : null,
                Failed = slices.Sum(s => s.Counts.Failed),
            },
        };
        // Batched priming is entity group transactions, its probe one of a single entity; unbatched, single inserts and deletes and a point read.
        TransactionCounts.Add(lines, new(batched ? "priming transactions (batch inserted, then deleted)" : "priming inserts, deletes and probe", Phases.Priming,
            BilledAs.TableTransaction, r.PrimingWrites + r.PrimingProbes) { Entities = batched ? r.PrimingEntities + r.PrimingProbes : null });
        if (verified.Requests is { } v)
        {
            TransactionCounts.Add(lines, new("query pages (keys only, up to 1,000 rows each)", Phases.Verification, BilledAs.TableTransaction, v.Queries));
            TransactionCounts.Add(lines, new("deletes of rows other executions left", Phases.Verification, BilledAs.TableTransaction, v.Deletes) { Entities = v.DeletedEntities });
        }
        TransactionCounts.Add(lines, new("SDK retries", Phases.Run, BilledAs.TableTransaction, r.Wire - writes - r.PrimingWrites - r.PrimingProbes));
        return lines;
    }

    protected override IEnumerable<(string Name, string Value)> Parameters(TableInsertSpec section) =>
    [
        ("entitySizeBytes", I(section.EntitySizeBytes)), ("batchSize", I(section.BatchSize)), ("partitionCount", I(section.PartitionCount)),
        ("concurrency", I(section.Concurrency)), ("slices", I(section.Slices)), ("targetOperationsPerSecond", I(section.TargetOperationsPerSecond)),
    ];

    protected override void Validate(TableInsertSpec section, SpecChecks errors)
    {
        var t = section;
        const string p = "tableInsert.";
        int before = errors.Count;
        errors.Range(p + "entityCount", t.EntityCount, 1, 1_000_000_000);
        errors.Range(p + "entitySizeBytes", t.EntitySizeBytes, 1, ServiceLimits.MaxEntityPayloadBytes,
            $"(1 MiB entity limit less {ServiceLimits.EntityOverheadBytes} bytes for keys and property names)");
        if (errors.Real(p + "batchSize", t.BatchSize) > ServiceLimits.MaxBatchSize)
        {
            errors.Add(new(p + "batchSize", errors.Shown(p + "batchSize", t.BatchSize), $"exceeds the service limit of {ServiceLimits.MaxBatchSize} entities per transaction"));
        }
        else
        {
            errors.Range(p + "batchSize", t.BatchSize, 1, ServiceLimits.MaxBatchSize);
        }
        if (t.BatchSize is > 1 and <= ServiceLimits.MaxBatchSize && t.EntitySizeBytes > 0)
        {
            long bytes = t.BatchSize * ServiceLimits.EncodedEntityBytes(t.EntitySizeBytes);
            if (bytes > ServiceLimits.MaxTransactionPayloadBytes)
            {
                errors.Add(new(p + "batchSize", Num(t.BatchSize),
                    $"x entitySizeBytes {Num(t.EntitySizeBytes)} is about {Num(bytes)} bytes on the wire (base64), over the 4 MiB transaction limit"));
            }
        }
        errors.Range(p + "partitionCount", t.PartitionCount, 1, 100_000);
        errors.Range(p + "concurrency", t.Concurrency, 1, 1_024);
        errors.Range(p + "slices", t.Slices, 1, ServiceLimits.MaxSlices);
        errors.Range(p + "targetOperationsPerSecond", t.TargetOperationsPerSecond, 0, 1_000_000, "(0 = closed loop)");
        errors.RunLength(t, p);
        errors.SlicesShare(p, t.Slices, "entityCount", t.EntityCount, "entity");
        if (errors.Count == before && t.DurationSeconds == 0)
        {
            // A fixed count: the requests each slice sends are known now. The last slice has the smallest share.
            long fewest = (t.EntityCount / t.Slices + t.BatchSize - 1) / t.BatchSize;
            string sends = $"entityCount {Num(t.EntityCount)} in batches of {Num(t.BatchSize)}{(t.Slices > 1 ? $" over {Num(t.Slices)} slices" : "")}";
            if (t.PartitionCount >= t.Slices)
            {
                // Slice i owns partitions i, i + slices, ... and sends batch b to the (b mod its partitions)-th: it fills
                // ceil((partitionCount - i) / slices) partitions only if it has that many batches.
                long most = Enumerable.Range(0, t.Slices).Min(i => (long)t.Slices * ((Planning.Planner.Share(t.EntityCount, i, t.Slices) + t.BatchSize - 1) / t.BatchSize) + i);
                if (t.PartitionCount > most)
                {
                    errors.Add(new(p + "partitionCount", Num(t.PartitionCount),
                        $"leaves partitions without a single batch: {sends} fills at most {Num(most)} partitions"));
                }
            }
            if (t.WarmupOperations >= fewest)
            {
                errors.Add(new(p + "warmupOperations", Num(t.WarmupOperations),
                    $"must be less than the {Num(fewest)} requests {(t.Slices > 1 ? "the smallest slice" : "the run")} sends ({sends}), or nothing is measured"));
            }
        }
    }
}

/// <param name="AcceptedAttempts">The slice executions whose results the orchestrator received; only their entities count.</param>
/// <param name="ReportedEntities">Every entity those executions say they stored, warm-up included.</param>
public sealed record VerifyTableInput(string TableName, string[] AcceptedAttempts, long ReportedEntities);
