using System.Text.RegularExpressions;
using StorageBench.Engine.Spec;

namespace StorageBench.Engine.Planning;

/// <summary>Splits a validated spec into slices. Pure and deterministic, so an orchestrator may call it on replay.</summary>
public static partial class Planner
{
    [GeneratedRegex("^[a-z0-9][a-z0-9-]{0,47}$")]
    private static partial Regex RunIdPattern();

    /// <summary>A new run id: UTC time first so ids sort by start, then randomness against collisions.</summary>
    public static string NewRunId(DateTime utcNow) =>
        $"{utcNow:yyyyMMdd-HHmmss}-{Guid.NewGuid().ToString("N")[..8]}";

    public static bool IsValidRunId(string runId) => RunIdPattern().IsMatch(runId);

    /// <summary>Each run writes to its own table, so ground truth is "count everything in it" and cleanup is one delete.</summary>
    public static string TableName(string runId) => "sbt" + Alnum(runId);

    public static string ContainerName(string runId) => "sbb" + Alnum(runId);

    public static string PartitionKey(int index) => $"p{index:D5}";

    /// <param name="targetAccounts">Configured target accounts: slice i writes to account i mod this.</param>
    public static IReadOnlyList<TableSlicePlan> PlanTable(string runId, TableInsertSpec spec, ClientSettings client, DateTime startAtUtc, int targetAccounts = 1)
    {
        var slices = new TableSlicePlan[spec.Slices];
        for (int i = 0; i < spec.Slices; i++)
        {
            slices[i] = new TableSlicePlan(runId, TableName(runId), i, PartitionsOf(i, spec.Slices, spec.PartitionCount),
                Share(spec.EntityCount, i, spec.Slices), spec.TargetOperationsPerSecond / spec.Slices, spec, client, startAtUtc, i % targetAccounts);
        }
        return slices;
    }

    public static IReadOnlyList<BlobSlicePlan> PlanBlob(string runId, BlobUploadSpec spec, ClientSettings client, DateTime startAtUtc, int targetAccounts = 1)
    {
        var slices = new BlobSlicePlan[spec.Slices];
        for (int i = 0; i < spec.Slices; i++)
        {
            slices[i] = new BlobSlicePlan(runId, ContainerName(runId), i, (int)Share(spec.BlobCount, i, spec.Slices), spec, client, startAtUtc, i % targetAccounts);
        }
        return slices;
    }

    /// <summary>Slice i's share of total, remainder to the first slices.</summary>
    public static long Share(long total, int index, int count) => total / count + (index < total % count ? 1 : 0);

    /// <summary>
    /// With at least as many partitions as slices each slice owns its own (p % slices == i);
    /// with fewer, slices share them — as the seeds' several processes shared one partition.
    /// </summary>
    private static string[] PartitionsOf(int slice, int sliceCount, int partitionCount)
    {
        if (partitionCount < sliceCount)
        {
            return [PartitionKey(slice % partitionCount)];
        }
        var keys = new List<string>();
        for (int p = slice; p < partitionCount; p += sliceCount)
        {
            keys.Add(PartitionKey(p));
        }
        return [.. keys];
    }

    private static string Alnum(string s) => new string(s.Where(char.IsAsciiLetterOrDigit).ToArray()).ToLowerInvariant();
}
