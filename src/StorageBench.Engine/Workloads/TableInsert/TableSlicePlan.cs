
namespace StorageBench.Engine.Workloads.TableInsert;

/// <summary>One table-insert activity's share of a step. Serializable and small: it crosses the orchestration boundary.</summary>
/// <param name="RunId">The run, for its cancel signal.</param>
/// <param name="EntityCount">This slice's share of the entities (count mode).</param>
/// <param name="OperationsPerSecond">This slice's share of the target rate; 0 = closed loop.</param>
/// <param name="TargetIndex">Which configured target account this slice writes to.</param>
public sealed record TableSlicePlan(
    string RunId,
    string StepId,
    string TableName,
    int SliceIndex,
    PartitionRange Partitions,
    long EntityCount,
    double OperationsPerSecond,
    TableInsertSpec Workload,
    ClientSettings Client,
    DateTime StartAtUtc,
    int TargetIndex = 0);
