using Microsoft.Azure.Functions.Worker;
using Microsoft.DurableTask;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration;

namespace StorageBench.Functions;

/// <summary>The orchestrators, called with Durable's own <see cref="TaskOrchestrationContext"/>. Replay-safe: nothing here but forwarding.</summary>
public static class OrchestratorFunctions
{
    [Function(BenchmarkOrchestrator.Name)]
    public static Task<RunSummary> BenchmarkRun([OrchestrationTrigger] TaskOrchestrationContext context) =>
        BenchmarkOrchestrator.RunAsync(context, Input<RunRequest>(context));

    [Function(StepOrchestrator.Name)]
    public static Task<StepResult> BenchmarkStep([OrchestrationTrigger] TaskOrchestrationContext context) =>
        StepOrchestrator.RunAsync(context, Input<StepInput>(context));

    [Function(SegmentedSlice.Name)]
    public static Task<SliceOutcome> BenchmarkSlice([OrchestrationTrigger] TaskOrchestrationContext context) =>
        SegmentedSlice.RunAsync(context, Input<SegmentedSliceInput>(context));

    [Function(HandedBackSlice.Name)]
    public static Task<SliceOutcome> HandedBackSliceCall([OrchestrationTrigger] TaskOrchestrationContext context) =>
        HandedBackSlice.RunAsync(context, Input<SliceOrder>(context));

    private static T Input<T>(TaskOrchestrationContext context) where T : class =>
        context.GetInput<T>() ?? throw new InvalidOperationException($"{context.InstanceId} was started without a {typeof(T).Name}");
}
