
namespace StorageBench.Engine.Preflight;

/// <summary>
/// Which storage services a run needs: each workload's own (a table workload: tables; a blob workload: blobs) on every target,
/// and tables where the results go. The one rule every call outside the measured path follows (preflight, creating,
/// verifying and deleting a step's table and container, cleanup): a target is sent requests only for these.
/// </summary>
public static class TargetServices
{
    /// <summary>The spec's workloads and the service each needs, in the spec's order.</summary>
    public static IReadOnlyList<(string Workload, TargetService Service)> Needed(RunSpec spec) =>
        [.. WorkloadList.In(spec).Select(w => (w.Room.Name, w.Room.Service))];

    /// <summary>
    /// The first need that has no endpoint, as one line naming the workload (or the results table), the service and the
    /// setting, ending "nothing was started"; null when every target has what the spec's workloads use and the results
    /// store has tables. Sends nothing: it is decided from the settings alone.
    /// </summary>
    /// <param name="results">Null: the results store is not judged here (the CLI checks its targets while its hub store starts).</param>
    public static string? Refusal(RunSpec spec, IReadOnlyList<StorageTarget> targets, StorageTarget? results)
    {
        foreach (var target in targets)
        {
            foreach (var (workload, service) in Needed(spec))
            {
                if (target.MissingEndpoint(service, workload, $"remove {workload} from the spec") is { } missing)
                {
                    return missing + "; nothing was started";
                }
            }
        }
        return results?.MissingEndpoint(TargetService.Table, "the results table", $"set {TargetSettings.ResultsConnectionString} to an account with tables") is { } noTable
            ? noTable + "; nothing was started"
            : null;
    }
}
