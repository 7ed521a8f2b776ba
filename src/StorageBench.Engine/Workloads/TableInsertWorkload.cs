using System.Diagnostics;
using Azure.Data.Tables;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;

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

    public static async Task<SliceResult> RunAsync(TableSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct)
    {
        var spec = plan.Workload;
        using var clients = target.CreateClients(plan.Client);
        var table = clients.Tables.GetTableClient(plan.TableName);
        var payload = new EntityPayload(spec.EntitySizeBytes);
        long batchCount = (plan.EntityCount + spec.BatchSize - 1) / spec.BatchSize;
        string attempt = SliceResult.NewAttemptId();

        await PreflightAsync(table, payload, plan).ConfigureAwait(false);

        var clock = await SliceClock.StartAtAsync(plan.StartAtUtc, time, ct).ConfigureAwait(false);
        double cpuAtStart = SliceResult.ProcessCpuSeconds();
        var schedule = new OperationSchedule(spec, batchCount, plan.OperationsPerSecond, clock.StartTimestamp);
        int loopCount = spec.DurationSeconds > 0 ? spec.Concurrency : (int)Math.Min(spec.Concurrency, batchCount);
        var workers = new WorkerRecorder[loopCount];
        var loops = new Task[loopCount];
        for (int w = 0; w < loopCount; w++)
        {
            var recorder = workers[w] = clock.NewRecorder();
            loops[w] = Task.Run(() => WorkerLoopAsync(plan, attempt, table, payload, schedule, recorder, ct), CancellationToken.None);
        }
        await Task.WhenAll(loops).ConfigureAwait(false);
        return SliceResult.FromWorkers(plan.StepId, attempt, Name, plan.SliceIndex, plan.TargetIndex, cpuAtStart, workers) with
        {
            StartLagSeconds = clock.LagSeconds(plan.StartAtUtc),
            Canceled = ct.IsCancellationRequested,
        };
    }

    /// <summary>
    /// Untimed, before the start barrier: opens this slice's connection and runs the request path the
    /// workload will use (for batches, a transaction deleting a row that does not exist: the service
    /// answers 404 and nothing is written), so the synchronized start does not wait on JIT or TCP.
    /// </summary>
    private static async Task PreflightAsync(TableClient table, EntityPayload payload, TableSlicePlan plan)
    {
        var probe = payload.NewEntity(plan.Partitions.KeyOf(0), $"preflight-{plan.SliceIndex:D3}");
        try
        {
            if (plan.Workload.BatchSize == 1)
            {
                await table.GetEntityIfExistsAsync<TableEntity>(probe.PartitionKey, probe.RowKey, select: ["PartitionKey"]).ConfigureAwait(false);
            }
            else
            {
                await table.SubmitTransactionAsync([new TableTransactionAction(TableTransactionActionType.Delete, probe, Azure.ETag.All)]).ConfigureAwait(false);
            }
        }
        catch (Exception ex) when (OutcomeClassifier.Classify(ex, CancellationToken.None) is not null)
        {
            // Expected: 404, the probe row does not exist. Any other answer (503, 403, …) is not ours
            // to count here: the measured requests will meet it and count it.
        }
    }

    /// <summary>Row keys are attempt-slice-batch-item: slices sharing a partition never collide, and each execution's rows are its own.</summary>
    public static string RowKey(string attempt, int slice, long batch, int item) => $"{attempt}-{slice:D3}-{batch:D9}-{item:D2}";

    /// <summary>The attempt id a row key starts with.</summary>
    public static string AttemptOf(string rowKey) => rowKey.Length > 8 && rowKey[8] == '-' ? rowKey[..8] : "";

    private static async Task WorkerLoopAsync(TableSlicePlan plan, string attempt, TableClient table, EntityPayload payload, OperationSchedule schedule,
        WorkerRecorder recorder, CancellationToken ct)
    {
        var spec = plan.Workload;
        bool timed = spec.DurationSeconds > 0;
        var actions = new List<TableTransactionAction>(spec.BatchSize);
        while (!ct.IsCancellationRequested && schedule.TryNext(out long batch, out long due))
        {
            string partition = plan.Partitions.KeyOf(batch);
            int size = timed ? spec.BatchSize : (int)Math.Min(spec.BatchSize, plan.EntityCount - batch * spec.BatchSize);
            actions.Clear();
            for (int i = 0; i < size; i++)
            {
                actions.Add(new TableTransactionAction(TableTransactionActionType.Add, payload.NewEntity(partition, RowKey(attempt, plan.SliceIndex, batch, i))));
            }

            if (!await OperationSchedule.WaitUntilAsync(due, ct).ConfigureAwait(false))
            {
                break;
            }
            // Open loop: latency from the scheduled start, so time spent waiting for a free slot counts.
            long start = schedule.IsOpenLoop ? due : Stopwatch.GetTimestamp();
            Outcome outcome;
            try
            {
                // Not canceled with ct: a request in flight finishes (or times out) and is counted, so what
                // the slice reports is exactly what it did.
                if (spec.BatchSize == 1)
                {
                    await table.AddEntityAsync(actions[0].Entity).ConfigureAwait(false);
                }
                else
                {
                    await table.SubmitTransactionAsync(actions).ConfigureAwait(false);
                }
                outcome = Outcome.Succeeded;
            }
            catch (Exception ex) when (OutcomeClassifier.Classify(ex, CancellationToken.None) is { } failed)
            {
                outcome = failed;
            }
            recorder.Record(outcome, start, size, schedule.IsWarmup(batch, start));
        }
    }
}
