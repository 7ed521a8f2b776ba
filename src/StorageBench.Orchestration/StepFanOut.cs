using StorageBench.Engine.Measurement;

namespace StorageBench.Orchestration;

/// <summary>
/// A workload's slices in one step: placed on workers (<see cref="SlicePlacement"/>), all awaited. A slice that fails is
/// named in the errors and the figures of the slices that completed are kept; notes say what went differently (re-runs,
/// slices that waited for a worker's activity limit). Deterministic: only the context and activities.
/// </summary>
internal static class StepFanOut
{
    /// <summary>What the fan-out gave: the slices' figures, whether the run was canceled under them, and the placement's failure.</summary>
    internal sealed record Outcome(List<SliceResult> Done, bool Stopped, string? PlacementFailure);

    public static async Task<Outcome> RunAsync(TaskOrchestrationContext context, IReadOnlyList<SliceOrder> plans, string workload, int step, RunSpec spec,
        WorkerSeen[] roster, List<string> errors, List<string> notes)
    {
        context.SetCustomStatus(new RunProgress(StepOrchestrator.RunningPhase, workload, plans.Count, step));
        var dispatch = await SlicePlacement.RunAsync(context, plans, spec.Placement, roster);
        var done = new List<SliceResult>();
        bool stopped = false;
        // One line per kind of note across the slices, and a failure's stack once: a step's errors stay small
        // (they are its output, within the payload budget) however many slices there are.
        var noted = new OrderedDictionary<string, List<(int Slice, string Detail)>>(StringComparer.Ordinal);
        var detailed = new HashSet<string>(StringComparer.Ordinal);
        var calls = dispatch.Calls;
        for (int i = 0; i < calls.Length; i++)
        {
            if (calls[i].IsCompletedSuccessfully)
            {
                if (calls[i].Result.Result is not { } result)
                {
                    continue;   // never placed: the placement's failure names it
                }
                done.Add(result);
                stopped |= result.Canceled;
                if (result.StopReason is { } reason)
                {
                    errors.Add($"{workload} slice {i} stopped early: {reason}");
                }
                foreach (string note in result.Notes)
                {
                    int colon = note.IndexOf(": ", StringComparison.Ordinal);
                    string kind = colon < 0 ? note : note[..colon];
                    if (!noted.TryGetValue(kind, out var slices))
                    {
                        noted[kind] = slices = [];
                    }
                    slices.Add((i, colon < 0 ? "" : note[(colon + 2)..]));
                }
            }
            else if (calls[i].Exception?.InnerException is TaskFailedException canceledSlice && canceledSlice.IsCancellation())
            {
                stopped = true;
            }
            else
            {
                var failure = calls[i].Exception?.InnerException;
                errors.Add($"{workload} slice {i}: " + (failure is TaskFailedException failed && detailed.Add(failed.FailureDetails.ErrorType + "\n" + failed.FailureDetails.ErrorMessage)
                    ? failed.Report()
                    : failure?.Message));
            }
        }
        foreach (var (kind, slices) in noted)
        {
            var (first, detail) = slices[0];
            // A slice in segments may say the same kind of thing for several of its segments: slices are counted once.
            int count = slices.Select(s => s.Slice).Distinct().Count();
            notes.Add(count == 1
                ? $"{workload} slice {first}: {kind}: {detail}"
                : $"{workload}, {count} of {plans.Count} slices: {kind} (slice {first}: {detail})");
        }
        if (dispatch.Lifted is { } lifted)
        {
            notes.Add(lifted);
        }
        if (Waited(workload, done, roster) is { } waited)
        {
            notes.Add(waited);
        }
        // A placement that failed stopped the slices itself: that is the step's failure, not the run's cancel.
        return new Outcome(done, stopped && dispatch.Failure is null, dispatch.Failure);
    }

    /// <summary>
    /// Slices that passed the start instant queued behind their worker's activity limit (slices of the step ended on that worker
    /// before it took them): said with the limit and the cure, which is never a longer start delay. Null when none waited.
    /// </summary>
    public static string? Waited(string workload, IReadOnlyList<SliceResult> done, IReadOnlyList<WorkerSeen> roster)
    {
        var waited = done.Where(s => s.WaitedForWorker).ToList();
        if (waited.Count == 0)
        {
            return null;
        }
        var limits = waited.Select(s => s.Worker).Distinct().Order(StringComparer.Ordinal)
            .Select(w => roster.FirstOrDefault(r => r.Worker == w)?.ActivityLimit is { } limit ? $"{w} runs at most {limit} activities at once" : $"{w} was at its activity limit");
        return $"{workload}: slice(s) {SlicePlacement.Ranges(waited.Select(s => s.SliceIndex))} waited for a worker: {string.Join("; ", limits)}, so they started " +
            "only when other slices of the step ended there, not at the synchronized start; startDelaySeconds cannot change that. Cure: more workers (or " +
            "instances), a higher activity limit (worker --max-activities; maxConcurrentActivityFunctions in host.json), or placement.slicesPerWorker";
    }
}
