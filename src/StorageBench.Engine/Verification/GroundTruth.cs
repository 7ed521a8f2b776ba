
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

    /// <summary>What reading blobs back found: how many differ from the MD5 their attempt sent, or that content was not checked.</summary>
    internal static string Content(bool contentChecked, long wrongContent) => contentChecked ? $"{wrongContent} whose MD5 differs from what was sent" : "content not checked";

    /// <summary>Blobs the listing showed that a read then did not find (404).</summary>
    internal static string NotFoundOnRead(long notFound) => notFound > 0 ? $"; {notFound} blobs not found when read (listed, then 404)" : "";
}
