using Azure.Data.Tables;

namespace StorageBench.Engine.Workloads.TableInsert;

/// <summary>
/// Inserts one slice's entities: entity group transactions of batchSize into one partition each
/// (single AddEntity calls when batchSize is 1), with Concurrency requests in flight, for a fixed
/// count or a fixed duration, closed loop or at a target rate.
/// Every row key starts with this execution's attempt id (activities run at least once). Canceling
/// <c>ct</c> stops the slice sending: requests already in flight finish and are counted, so the
/// figures of a canceled slice are still true.
/// </summary>
public static class TableInsertSlice
{
    /// <param name="live">Shown the workers' recorders once they exist, for progress; null when nobody watches.</param>
    /// <param name="logger">Where the slice's swallowed failures go (its first failed priming request); none when not given.</param>
    public static async Task<SliceResult> RunAsync(TableSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live = null,
        ILogger? logger = null)
    {
        var spec = plan.Workload;
        using var clients = target.CreateClients(plan.Client);
        var table = clients.Tables.GetTableClient(plan.TableName);
        var work = new Inserts(plan, clients, table, new EntityPayload(spec.EntitySizeBytes));
        var priming = await PrimeAsync(table, work.Payload, plan, work.Loops, time, () => work.NewLoop(0), logger).ConfigureAwait(false);
        return await SliceLoop.RunAsync(new SliceStart(plan.StepId, TableInsertRoom.Instance.Name, plan.SliceIndex, plan.TargetIndex, plan.StartAtUtc, spec, clients.Tables.Uri), work,
            priming, () => clients.TableWire.Sent, time, ct, live).ConfigureAwait(false);
    }

    /// <summary>One operation: a batch of up to batchSize entities into the partition its index falls to, on the driver the spec chose.</summary>
    private sealed class Inserts(TableSlicePlan plan, StorageClients clients, TableClient table, EntityPayload payload) : SliceWork<ITableInserts>
    {
        private readonly long _batches = (plan.EntityCount + plan.Workload.BatchSize - 1) / plan.Workload.BatchSize;

        public EntityPayload Payload => payload;

        public override int Loops => plan.Workload.DurationSeconds > 0 ? plan.Workload.Concurrency : (int)Math.Min(plan.Workload.Concurrency, _batches);

        public override long Count => _batches;

        public override double OperationsPerSecond => plan.OperationsPerSecond;

        public override ITableInserts NewLoop(int index) => ITableInserts.For(plan.Client, clients, table, payload, plan.Workload.BatchSize);

        private int SizeOf(long batch) => plan.Workload.DurationSeconds > 0
            ? plan.Workload.BatchSize
            : (int)Math.Min(plan.Workload.BatchSize, plan.EntityCount - batch * plan.Workload.BatchSize);

        public override void Prepare(ITableInserts inserts, long batch) =>
            inserts.Prepare(plan.Partitions.KeyOf(batch), AttemptId, plan.SliceIndex, batch, SizeOf(batch));

        public override async Task SendAsync(ITableInserts inserts, Operation op) =>
            op.Lane.Record(await Lane.SendAsync(inserts.SendAsync).ConfigureAwait(false), SizeOf(op.Index), op.Index, op.Due);

        public override SliceResult Finish(SliceResult result, IReadOnlyList<WorkerRecorder> recorders) => result with
        {
            Planned = plan.Workload.DurationSeconds > 0 ? recorders.Sum(w => w.UnitsAttempted) : plan.EntityCount,
        };
    }

    /// <summary>
    /// Untimed, before the start barrier: one probe request (a transaction deleting a row that does not
    /// exist, or a point read, answered 404), then <c>client.primeRounds</c> rounds on every in-flight
    /// loop of the workload's own request, with one entity — a batch inserted and deleted again — so JIT compilation,
    /// tier-up and connection set-up are done before the measured window, and nothing is left behind.
    /// A row the delete missed carries the primer's attempt id and is removed by verification. Rounds
    /// stop when the start instant comes near (<see cref="Priming.Margin"/>), so priming never delays it.
    /// Returns what it sent: billed like any request, so the cost estimate counts it.
    /// </summary>
    private static async Task<SliceRequests> PrimeAsync(TableClient table, EntityPayload payload, TableSlicePlan plan, int loops, TimeProvider time, Func<ITableInserts> newInserts,
        ILogger? logger)
    {
        var tally = new PrimingTally(logger, plan.SliceIndex);
        var spec = plan.Workload;
        string partition = plan.Partitions.KeyOf(0);
        var probe = payload.NewEntity(partition, $"preflight-{plan.SliceIndex:D3}");
        await tally.Quietly(spec.BatchSize == 1
            ? table.GetEntityIfExistsAsync<TableEntity>(probe.PartitionKey, probe.RowKey, select: ["PartitionKey"])
            : table.SubmitTransactionAsync([new TableTransactionAction(TableTransactionActionType.Delete, probe, Azure.ETag.All)])).ConfigureAwait(false);
        int[] rounds = await Task.WhenAll(Enumerable.Range(0, plan.Client.PrimeRounds > 0 ? Math.Min(loops, Priming.MaxLoops) : 0).Select(loop => Task.Run(async () =>
        {
            int round = 0;
            // The insert goes through the measured driver (that is the path to warm); the SDK deletes it again.
            using var inserts = newInserts();
            var lastRound = TimeSpan.Zero;
            for (; round < plan.Client.PrimeRounds && Priming.HasTime(plan.StartAtUtc, time, lastRound); round++)
            {
                long began = time.GetTimestamp();
                var entities = Enumerable.Range(0, Priming.Entities)
                    .Select(i => payload.NewEntity(partition, RowKey(Priming.Attempt, plan.SliceIndex, loop * 1000L + round, i))).ToList();
                inserts.Prepare(partition, Priming.Attempt, plan.SliceIndex, loop * 1000L + round, Priming.Entities);
                await tally.Quietly(inserts.SendAsync()).ConfigureAwait(false);
                if (spec.BatchSize == 1)
                {
                    await tally.Quietly(table.DeleteEntityAsync(entities[0], Azure.ETag.All)).ConfigureAwait(false);
                }
                else
                {
                    await tally.Quietly(table.SubmitTransactionAsync(entities.Select(e => new TableTransactionAction(TableTransactionActionType.Delete, e, Azure.ETag.All)))).ConfigureAwait(false);
                }
                lastRound = time.GetElapsedTime(began);
            }
            return round;
        })));
        // Each round is two requests (insert, delete) of Priming.Entities each.
        long sent = 2L * rounds.Sum();
        return tally.AddTo(new SliceRequests { PrimingProbes = 1, PrimingWrites = sent, PrimingEntities = sent * Priming.Entities });
    }


    /// <summary>Row keys are attempt-slice-batch-item: slices sharing a partition never collide, and each execution's rows are its own.</summary>
    public static string RowKey(string attempt, int slice, long batch, int item) => $"{attempt}-{slice:D3}-{batch:D9}-{item:D2}";

    /// <summary>The attempt id a row key starts with.</summary>
    public static string AttemptOf(string rowKey) => rowKey.Length > 8 && rowKey[8] == '-' ? rowKey[..8] : "";
}
