using System.Diagnostics;
using Azure.Data.Tables;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// Inserts one slice's entities: entity group transactions of batchSize into one partition each
/// (single AddEntity calls when batchSize is 1), with Concurrency requests in flight, for a fixed
/// count or a fixed duration, closed loop or at a target rate.
/// </summary>
public static class TableInsertWorkload
{
    public const string Name = "tableInsert";

    public static async Task<SliceResult> RunAsync(TableSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct)
    {
        var spec = plan.Workload;
        using var clients = target.CreateClients(plan.Client);
        var table = clients.Tables.GetTableClient(plan.TableName);
        var payload = new EntityPayload(spec.EntitySizeBytes);
        long batchCount = (plan.EntityCount + spec.BatchSize - 1) / spec.BatchSize;

        await PreflightAsync(table, payload, plan, ct).ConfigureAwait(false);

        var clock = await SliceClock.StartAtAsync(plan.StartAtUtc, time, ct).ConfigureAwait(false);
        double cpuAtStart = SliceResult.ProcessCpuSeconds();
        var schedule = new OperationSchedule(spec, batchCount, plan.OperationsPerSecond, clock.StartTimestamp);
        int loopCount = spec.DurationSeconds > 0 ? spec.Concurrency : (int)Math.Min(spec.Concurrency, batchCount);
        var workers = new WorkerRecorder[loopCount];
        var loops = new Task[loopCount];
        for (int w = 0; w < loopCount; w++)
        {
            var recorder = workers[w] = clock.NewRecorder();
            loops[w] = Task.Run(() => WorkerLoopAsync(plan, table, payload, schedule, recorder, ct), ct);
        }
        await Task.WhenAll(loops).ConfigureAwait(false);
        return SliceResult.FromWorkers(plan.RunId, Name, plan.SliceIndex, plan.TargetIndex, cpuAtStart, workers) with { StartLagSeconds = clock.LagSeconds(plan.StartAtUtc) };
    }

    /// <summary>
    /// Untimed, before the start barrier: opens this slice's connection and runs the request path the
    /// workload will use (for batches, a transaction deleting a row that does not exist: the service
    /// answers 404 and nothing is written), so the synchronized start does not wait on JIT or TCP.
    /// </summary>
    private static async Task PreflightAsync(TableClient table, EntityPayload payload, TableSlicePlan plan, CancellationToken ct)
    {
        var probe = payload.NewEntity(plan.PartitionKeys[0], $"preflight-{plan.SliceIndex:D3}");
        try
        {
            if (plan.Workload.BatchSize == 1)
            {
                await table.GetEntityIfExistsAsync<TableEntity>(probe.PartitionKey, probe.RowKey, select: ["PartitionKey"], cancellationToken: ct).ConfigureAwait(false);
            }
            else
            {
                await table.SubmitTransactionAsync([new TableTransactionAction(TableTransactionActionType.Delete, probe, Azure.ETag.All)], ct).ConfigureAwait(false);
            }
        }
        catch (Exception ex) when (OutcomeClassifier.Classify(ex, ct) is not null)
        {
            // Expected: 404, the probe row does not exist. Any other answer (503, 403, …) is not ours
            // to count here: the measured requests will meet it and count it.
        }
    }

    /// <summary>Row keys are slice-batch-item, so slices sharing a partition never collide.</summary>
    public static string RowKey(int slice, long batch, int item) => $"{slice:D3}-{batch:D9}-{item:D2}";

    private static async Task WorkerLoopAsync(TableSlicePlan plan, TableClient table, EntityPayload payload, OperationSchedule schedule,
        WorkerRecorder recorder, CancellationToken ct)
    {
        var spec = plan.Workload;
        bool timed = spec.DurationSeconds > 0;
        var actions = new List<TableTransactionAction>(spec.BatchSize);
        while (schedule.TryNext(out long batch, out long due))
        {
            string partition = plan.PartitionKeys[batch % plan.PartitionKeys.Length];
            int size = timed ? spec.BatchSize : (int)Math.Min(spec.BatchSize, plan.EntityCount - batch * spec.BatchSize);
            actions.Clear();
            for (int i = 0; i < size; i++)
            {
                actions.Add(new TableTransactionAction(TableTransactionActionType.Add, payload.NewEntity(partition, RowKey(plan.SliceIndex, batch, i))));
            }

            await OperationSchedule.WaitUntilAsync(due, ct).ConfigureAwait(false);
            // Open loop: latency from the scheduled start, so time spent waiting for a free slot counts.
            long start = schedule.IsOpenLoop ? due : Stopwatch.GetTimestamp();
            Outcome outcome;
            try
            {
                if (spec.BatchSize == 1)
                {
                    await table.AddEntityAsync(actions[0].Entity, ct).ConfigureAwait(false);
                }
                else
                {
                    await table.SubmitTransactionAsync(actions, ct).ConfigureAwait(false);
                }
                outcome = Outcome.Succeeded;
            }
            catch (Exception ex) when (OutcomeClassifier.Classify(ex, ct) is { } failed)
            {
                outcome = failed;
            }
            recorder.Record(outcome, start, size, schedule.IsWarmup(batch, start));
        }
    }
}
