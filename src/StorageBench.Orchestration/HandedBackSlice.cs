namespace StorageBench.Orchestration;

/// <summary>
/// A slice order that a worker handed back, called again from an orchestration of its own. Why: the Azure Storage provider
/// wakes a process's work-item poller when that process queues a message, so the worker that runs an orchestration is the
/// first to take every activity it schedules — the step's worker re-took each order it had just refused, hundreds of times.
/// This orchestration's instance id puts it on another control-queue partition, whose owner runs it and so is the first to
/// take the order; each hand-back of a slice gets a new id, so the calls go round the partitions and their workers.
/// </summary>
public static class HandedBackSlice
{
    public const string Name = "HandedBackSlice";

    /// <summary>Only the slice's call: its outcome, or its failure, is the parent's.</summary>
    public static Task<SliceOutcome> RunAsync(TaskOrchestrationContext context, SliceOrder order) => ActivityList.RunSlice.CallAsync(context, order);

    /// <summary>Calls the order from its own orchestration; a failed slice fails as the activity it ran (the step reads it as one).</summary>
    public static async Task<SliceOutcome> CallAsync(TaskOrchestrationContext context, SliceOrder order)
    {
        try
        {
            var options = new SubOrchestrationOptions { InstanceId = InstanceId(context.InstanceId, order) };
            // A slice in segments not begun yet goes on as its own orchestration, from that partition.
            return await (order.Segments is not null && order.Segment is null
                ? context.CallSubOrchestratorAsync<SliceOutcome>(SegmentedSlice.Name, new SegmentedSliceInput(order), options)
                : context.CallSubOrchestratorAsync<SliceOutcome>(Name, order, options));
        }
        catch (TaskFailedException failed) when (failed.FailureDetails.InnerFailure is { } slice)
        {
            throw new TaskFailedException(ActivityNames.RunSlice, failed.TaskId, slice);
        }
    }

    /// <summary>
    /// One id per hand-back of a slice, on a partition chosen so that its hand-backs go round all the hub's partitions, and so
    /// round their owners, within 16 calls (at random, a worker that owns 2 of 16 would be missed by 16 calls one time in 8: (7/8)^16).
    /// The stride, 5, is prime to 16 (and ≡ 1 mod 4, so a hub of 4 goes round one by one); it steps over the neighbouring
    /// partition, which the provider's balancing tends to give the same worker (a worker steals the first of another's).
    /// </summary>
    public static string InstanceId(string stepInstanceId, SliceOrder order) =>
        HubPartitions.IdOn($"{stepInstanceId}-{order.Workload}-s{order.SliceIndex}-h{order.HandBacks}-", Partition(order));

    /// <summary>The partition of 16 a slice's order is handed back to: its index, then 5 further on for each hand-back.</summary>
    public static int Partition(SliceOrder order) => (order.SliceIndex + (Stride * order.HandBacks)) % HubPartitions.Most;

    private const int Stride = 5;
}
