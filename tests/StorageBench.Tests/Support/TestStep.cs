using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.TableInsert;

namespace StorageBench.Tests;

/// <summary>A step's names as the step orchestrator makes them, for tests that drive workloads directly.</summary>
internal sealed record TestStep(string RunId, string StepId, string TableName, string ContainerName)
{
    public static TestStep New()
    {
        var now = DateTime.UtcNow;
        string runId = Planner.NewRunId(now);
        string stepId = Planner.StepId(runId, 0);
        return new TestStep(runId, stepId, Planner.TableName(stepId, now), Planner.ContainerName(stepId, now));
    }

    public IReadOnlyList<TableSlicePlan> Table(TableInsertSpec spec, ClientSettings? client = null) =>
        TableInsertRoom.PlanSlices(RunId, StepId, TableName, spec, client ?? new ClientSettings(), DateTime.UtcNow);

    public IReadOnlyList<BlobSlicePlan<BlobUploadSpec>> Blob(BlobUploadSpec spec, ClientSettings? client = null) =>
        BlobUploadRoom.PlanSlices(RunId, StepId, ContainerName, spec, client ?? new ClientSettings(), DateTime.UtcNow);
}
