using System.Diagnostics;
using Azure.Data.Tables;
using Microsoft.Extensions.Logging;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Targets;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// Inserts one slice's entities: entity group transactions of batchSize into one partition each
/// (single AddEntity calls when batchSize is 1), with Concurrency requests in flight, for a fixed
/// count or a fixed duration, closed loop or at a target rate.
/// Every row key starts with this execution's attempt id (activities run at least once). Canceling
/// <c>ct</c> stops the slice sending: requests already in flight finish and are counted, so the
/// figures of a canceled slice are still true.
/// </summary>
public static class TableInsertWorkload
{
    public const string Name = "tableInsert";

    /// <param name="live">Shown the workers' recorders once they exist, for progress; null when nobody watches.</param>
    /// <param name="logger">Where the slice's swallowed failures go (its first failed priming request); none when not given.</param>
    public static async Task<SliceResult> RunAsync(TableSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live = null,
        ILogger? logger = null)
    {
        var spec = plan.Workload;
        using var clients = target.CreateClients(plan.Client);
        var table = clients.Tables.GetTableClient(plan.TableName);
        var payload = new EntityPayload(spec.EntitySizeBytes);
        long batchCount = (plan.EntityCount + spec.BatchSize - 1) / spec.BatchSize;
        string attempt = SliceResult.NewAttemptId();

        int loopCount = spec.DurationSeconds > 0 ? spec.Concurrency : (int)Math.Min(spec.Concurrency, batchCount);
        // Each in-flight loop's request, on the driver the spec chose (client.driver).
        ITableInserts NewInserts() => ITableInserts.For(plan.Client, clients, table, payload, spec.BatchSize);
        var priming = await PrimeAsync(table, payload, plan, loopCount, time, NewInserts, logger).ConfigureAwait(false);

        var clock = await SliceClock.StartAtAsync(plan.StartAtUtc, time, ct).ConfigureAwait(false);
        double cpuAtStart = SliceResult.ProcessCpuSeconds();
        var schedule = new OperationSchedule(spec, batchCount, plan.OperationsPerSecond, clock.StartTimestamp);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var breaker = new UnreachableBreaker(loopCount, stop, clients.Tables.Uri);
        var workers = new WorkerRecorder[loopCount];
        var loops = new Task[loopCount];
        for (int w = 0; w < loopCount; w++)
        {
            var recorder = workers[w] = clock.NewRecorder(openLoop: schedule.IsOpenLoop);
            loops[w] = Task.Run(() => WorkerLoopAsync(plan, attempt, NewInserts, schedule, recorder, breaker, stop.Token), CancellationToken.None);
        }
        live?.Watch(workers);
        await Task.WhenAll(loops).ConfigureAwait(false);
        return SliceResult.FromWorkers(plan.StepId, attempt, Name, plan.SliceIndex, plan.TargetIndex, cpuAtStart, workers,
            requests: priming with { Wire = clients.TableWire.Sent }) with
        {
            StartLagSeconds = clock.LagSeconds(plan.StartAtUtc),
            Canceled = ct.IsCancellationRequested,
            StopReason = breaker.Reason,
            Planned = spec.DurationSeconds > 0 ? workers.Sum(w => w.UnitsAttempted) : plan.EntityCount,
            DroppedOperations = schedule.Dropped(),
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
                    .Select(i => payload.NewEntity(partition, RowKey(PrimerAttempt, plan.SliceIndex, loop * 1000L + round, i))).ToList();
                inserts.Prepare(partition, PrimerAttempt, plan.SliceIndex, loop * 1000L + round, Priming.Entities);
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

    /// <summary>The primer's rows carry this in place of an attempt id: never accepted, so never counted.</summary>
    public const string PrimerAttempt = "0primer0";

    /// <summary>Row keys are attempt-slice-batch-item: slices sharing a partition never collide, and each execution's rows are its own.</summary>
    public static string RowKey(string attempt, int slice, long batch, int item) => $"{attempt}-{slice:D3}-{batch:D9}-{item:D2}";

    /// <summary>The attempt id a row key starts with.</summary>
    public static string AttemptOf(string rowKey) => rowKey.Length > 8 && rowKey[8] == '-' ? rowKey[..8] : "";

    private static async Task WorkerLoopAsync(TableSlicePlan plan, string attempt, Func<ITableInserts> newInserts, OperationSchedule schedule,
        WorkerRecorder recorder, UnreachableBreaker breaker, CancellationToken ct)
    {
        var spec = plan.Workload;
        bool timed = spec.DurationSeconds > 0;
        using var inserts = newInserts();
        while (!ct.IsCancellationRequested && schedule.TryNext(out long batch, out long due))
        {
            string partition = plan.Partitions.KeyOf(batch);
            int size = timed ? spec.BatchSize : (int)Math.Min(spec.BatchSize, plan.EntityCount - batch * spec.BatchSize);
            inserts.Prepare(partition, attempt, plan.SliceIndex, batch, size);

            if (!await OperationSchedule.WaitUntilAsync(due, ct).ConfigureAwait(false))
            {
                break;
            }
            // The recorder times latency from the earlier of the slot and the send: a request that went out late waited for its
            // slot's loop, and its caller would have; one the timer woke early for (its clock counts coarse ms) is timed from the
            // send, never shorter than the service took (from the slot an open loop once reported 0.001 ms on Azurite).
            long start = Stopwatch.GetTimestamp();
            Outcome outcome;
            try
            {
                // Not canceled with ct: a request in flight finishes (or times out) and is counted, so what
                // the slice reports is exactly what it did.
                await inserts.SendAsync().ConfigureAwait(false);
                outcome = Outcome.Succeeded;
            }
            catch (Exception ex) when (OutcomeClassifier.Classify(ex, CancellationToken.None) is { } failed)
            {
                outcome = failed;
            }
            recorder.Record(outcome, start, size, schedule.IsWarmup(batch, start), due);
            breaker.Observe(outcome);
        }
    }
}
