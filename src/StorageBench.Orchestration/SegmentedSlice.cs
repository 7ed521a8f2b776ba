using StorageBench.Engine.Measurement;

namespace StorageBench.Orchestration;

/// <summary>A segmented slice's orchestration input: its order, the next segment, and the figures of the segments before it.</summary>
[CarriesFigures(SliceResult.HistogramCount, 1)]
public sealed record SegmentedSliceInput(SliceOrder Order, int Next = 0, SliceResult? SoFar = null);

/// <summary>
/// A timed slice longer than segmentSeconds, as its own orchestration: one segment activity after another, each going on
/// where the one before stopped (<see cref="SliceSegment"/>), their figures merged exactly (<see cref="SegmentMerge"/>). A
/// segment its host stopped runs again (Durable redelivers it), so a recycle or a kill loses that segment only, and
/// `run --resume` goes on from the last finished one. Every <see cref="SegmentsPerGeneration"/> segments it continues as new,
/// carrying the figures so far, so its history does not grow with the run. Deterministic: only the context and activities.
/// </summary>
public static class SegmentedSlice
{
    public const string Name = "BenchmarkSlice";

    /// <summary>
    /// Segments one generation of the orchestration runs before it continues as new: its history then holds at most this many
    /// segments' events (about six each), and replaying it never reads more, however long the slice.
    /// </summary>
    public const int SegmentsPerGeneration = 10;

    public static async Task<SliceOutcome> RunAsync(TaskOrchestrationContext context, SegmentedSliceInput input)
    {
        var order = input.Order;
        var plan = order.Segments ?? throw new InvalidOperationException($"slice {order.SliceIndex} of {order.StepId} has no segments");
        var soFar = input.SoFar;
        DateTime? firstRefused = null;
        bool handedBack = false;
        for (int index = input.Next, ran = 0; index < plan.Count;)
        {
            if (ran == SegmentsPerGeneration)
            {
                context.ContinueAsNew(input with { Order = order, Next = index, SoFar = soFar });
                return null!;
            }
            var segment = plan.Segment(index, soFar?.Continuation) with { Before = LiveCounts.Of(soFar) };
            var call = order with { Segment = segment, SegmentsSoFar = segment.IsLast ? soFar : null };
            var outcome = await (handedBack ? HandedBackSlice.CallAsync(context, call) : ActivityList.RunSlice.CallAsync(context, call));
            if (outcome.Refused is not null)
            {
                if (soFar is null)
                {
                    return outcome;   // the first segment is placed as a whole slice is: the step hands it to another worker
                }
                // A later segment found no room on the worker that took it (its worker was recycled, or other slices hold its seats):
                // handed back as a re-run slice is, then, past the re-run's wait, run wherever a worker takes it.
                firstRefused ??= context.CurrentUtcDateTime;
                bool lift = context.CurrentUtcDateTime - firstRefused >= SlicePlacement.RerunWait;
                order = order with { HandBacks = order.HandBacks + 1, SlicesPerWorker = lift ? null : order.SlicesPerWorker };
                await context.CreateTimer(SlicePlacement.HandBackPause(order.HandBacks), CancellationToken.None);
                handedBack = true;
                continue;
            }
            (firstRefused, handedBack) = (null, false);
            soFar = SegmentMerge.Add(soFar, outcome.Result!, index, plan.Count);
            index++;
            ran++;
            if (soFar.Canceled || soFar.StopReason is not null)
            {
                break;   // the run's cancel or a dead target: what it measured so far is the slice's result
            }
        }
        return new SliceOutcome(soFar);
    }
}
