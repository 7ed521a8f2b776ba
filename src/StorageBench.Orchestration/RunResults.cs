using System.Text.Json;
using StorageBench.Engine;
using StorageBench.Engine.Cost;
using StorageBench.Engine.StorageCalls;

namespace StorageBench.Orchestration;

/// <summary>
/// Puts a finished run's whole summary together, as summary.json and the runs API show it: the run's
/// own output, each step's workloads (each step sub-orchestration's output) and each slice's row in the
/// results table. Every piece crossed the orchestration boundary on its own, within the payload budget.
/// </summary>
public static class RunResults
{
    /// <summary>
    /// The summary of a finished run, or null while it runs (or when it was terminated before it could write one).
    /// Its cost estimate prices the workloads' counted requests with <paramref name="prices"/> (default: the built-in table).
    /// </summary>
    public static async Task<RunSummary?> LoadAsync(IRunOrchestrationClient client, ResultsTableStore? results, string runId, CancellationToken ct,
        PriceTable? prices = null)
    {
        var state = await client.GetStateAsync(runId, ct).ConfigureAwait(false);
        if (state is not { RuntimeStatus: RuntimeStatus.Completed, OutputJson: { } output })
        {
            return null;
        }
        var run = JsonSerializer.Deserialize<RunSummary>(output, JsonDefaults.Options)!;
        var steps = new List<StepResult>();
        foreach (string stepId in run.Steps)
        {
            if ((await client.GetStateAsync(stepId, ct).ConfigureAwait(false))?.OutputJson is { } json
                && JsonSerializer.Deserialize<StepResult>(json, JsonDefaults.Options) is { } step)
            {
                steps.Add(step);
            }
        }
        var errors = run.Errors.ToList();
        IReadOnlyDictionary<(string, string), IReadOnlyList<SliceSummary>> slices = new Dictionary<(string, string), IReadOnlyList<SliceSummary>>();
        if (results is not null && steps.Any(s => s.Workloads.Count > 0))
        {
            try
            {
                slices = await StorageCall.RunAsync("per-slice figures", results.Policy.Results, t => results.SliceSummariesAsync(runId, t), ct).ConfigureAwait(false);
            }
            catch (StorageCallFailedException ex)
            {
                errors.Add("per-slice figures: the results table could not be read: " + ex.Failure.Text);
            }
        }
        var workloads = steps.SelectMany(step => step.Workloads.Select(w => w with
        {
            PerSlice = slices.TryGetValue((step.StepId, w.Workload), out var rows)
                ? [.. rows.Where(r => w.SliceAttempts.Contains(r.Attempt))]
                : [],
        })).ToList();
        return run with { Workloads = workloads, Errors = errors, Cost = CostEstimator.Estimate(workloads, prices ?? PriceTableReader.BuiltIn) };
    }
}
