
namespace StorageBench.Engine.Verification;

/// <summary>
/// Counts what really landed in a step's own table or container and compares it with what the run
/// reported. Activities run at least once, so a slice may have run twice: only the executions whose
/// results the orchestrator accepted (their attempt ids) are counted; anything another execution
/// wrote is deleted and reported as discarded. Anything that does not carry an attempt id at all was
/// not written by this tool, and fails verification.
/// </summary>
public static partial class GroundTruth
{
    internal static string Across(IReadOnlyList<StorageTarget> targets) => targets.Count > 1 ? $" across {targets.Count} accounts" : "";

    internal static string Discarded(long count, string what) =>
        count > 0 ? $"; {count} {what} written by an execution whose result was not used were deleted" : "";

    internal static string Foreign(long count, string what) => count > 0 ? $"; {count} {what} this tool did not write" : "";
}
