using System.Diagnostics;
using Azure.Data.Tables;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// Inserts one slice's entities: entity group transactions of batchSize into one partition each
/// (single AddEntity calls when batchSize is 1), with Concurrency requests in flight.
/// </summary>
public static class TableInsertWorkload
{
    public const string Name = "tableInsert";

    public static async Task<SliceResult> RunAsync(TableSlicePlan plan, StorageTarget target, TimeProvider time, CancellationToken ct)
    {
        using var clients = target.CreateClients(plan.Client);
        var table = clients.Tables.GetTableClient(plan.TableName);
        var payload = new EntityPayload(plan.EntitySizeBytes);
        long batchCount = (plan.EntityCount + plan.BatchSize - 1) / plan.BatchSize;
        long next = -1;

        var clock = await SliceClock.StartAtAsync(plan.StartAtUtc, time, ct).ConfigureAwait(false);
        var workers = new WorkerRecorder[(int)Math.Min(plan.Concurrency, batchCount)];
        var loops = new Task[workers.Length];
        for (int w = 0; w < workers.Length; w++)
        {
            var recorder = workers[w] = clock.NewRecorder();
            loops[w] = Task.Run(() => WorkerLoopAsync(plan, table, payload, batchCount, () => Interlocked.Increment(ref next), recorder, ct), ct);
        }
        await Task.WhenAll(loops).ConfigureAwait(false);
        return SliceResult.FromWorkers(Name, plan.SliceIndex, clock.StartedUtc, clock.UtcNow, workers);
    }

    /// <summary>Row keys are slice-batch-item, so slices sharing a partition never collide and reruns are deterministic.</summary>
    public static string RowKey(int slice, long batch, int item) => $"{slice:D3}-{batch:D9}-{item:D2}";

    private static async Task WorkerLoopAsync(TableSlicePlan plan, TableClient table, EntityPayload payload, long batchCount,
        Func<long> nextBatch, WorkerRecorder recorder, CancellationToken ct)
    {
        var actions = new List<TableTransactionAction>(plan.BatchSize);
        for (long batch = nextBatch(); batch < batchCount; batch = nextBatch())
        {
            string partition = plan.PartitionKeys[batch % plan.PartitionKeys.Length];
            int size = (int)Math.Min(plan.BatchSize, plan.EntityCount - batch * plan.BatchSize);
            actions.Clear();
            for (int i = 0; i < size; i++)
            {
                actions.Add(new TableTransactionAction(TableTransactionActionType.Add, payload.NewEntity(partition, RowKey(plan.SliceIndex, batch, i))));
            }

            long start = Stopwatch.GetTimestamp();
            Outcome outcome;
            try
            {
                if (plan.BatchSize == 1)
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
            recorder.Record(outcome, start, size);
        }
    }
}
