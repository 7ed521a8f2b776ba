using System.Globalization;

namespace StorageBench.Orchestration;

/// <summary>
/// Where a step's slices run: the one rule both hosts share (docs/architecture.md, "Placement"). Every slice carries a cap —
/// the spec's placement.slicesPerWorker, else an even share of the workers on the hub's roster — and a worker that already
/// runs that many of the step's slices hands the order back (<see cref="SeatRefusal"/>); the step calls it again until a
/// worker with room takes it. A slice with no worker by the planned start: with a placement the step fails, naming it; without
/// one the cap is lifted and the slice runs wherever Durable puts it. Deterministic: only the context's clock and activities.
/// </summary>
public static class SlicePlacement
{
    /// <summary>How long a re-run slice (its worker died after taking it) may look for a worker with room before the rule gives up.</summary>
    public static readonly TimeSpan RerunWait = TimeSpan.FromSeconds(60);

    /// <summary>How long past the start instant a slice may still look for a worker with room when enough workers are up (its late start is reported).</summary>
    public static readonly TimeSpan LateStartWait = TimeSpan.FromSeconds(40);

    /// <summary>The cap of a step: the placement's, else ⌈slices ÷ workers⌉ over more than one registered worker, else none.</summary>
    public static int? Cap(PlacementSpec? placement, int slices, int workersUp) =>
        placement?.SlicesPerWorker ?? (workersUp > 1 ? (slices + workersUp - 1) / workersUp : null);

    /// <summary>The workers on the hub's roster, or none when they cannot be listed (the Function App's instances do not register).</summary>
    public static async Task<WorkerSeen[]> WorkersAsync(TaskOrchestrationContext context)
    {
        try
        {
            return await ActivityList.ListWorkers.CallAsync(context, null);
        }
        catch (TaskFailedException)
        {
            return [];
        }
    }

    /// <summary>
    /// Calls every slice under its cap and calls a refused one again until a worker takes it, or until it is past its time:
    /// the start instant when fewer workers than the cap needs were seen, <see cref="LateStartWait"/> after it when enough
    /// were (the hand-backs between them were too slow), a re-run <see cref="RerunWait"/> after its first refusal. Returns each slice's last call; with
    /// <see cref="Dispatch.Failure"/> set the placement could not be met, and the run's stop signal has gone to the slices
    /// that did start.
    /// </summary>
    public static async Task<Dispatch> RunAsync(TaskOrchestrationContext context, IReadOnlyList<SliceOrder> planned, PlacementSpec? placement, WorkerSeen[] roster)
    {
        var orders = planned.ToArray();
        int? cap = Cap(placement, orders.Length, roster.Length);
        var calls = orders.Select(o => Call(context, o with { SlicesPerWorker = cap })).ToArray();
        var firstRefused = new DateTime?[orders.Length];
        var open = new HashSet<int>(Enumerable.Range(0, orders.Length));
        var seen = new SortedSet<string>(roster.Select(w => w.Worker), StringComparer.Ordinal);
        var unplaced = new SortedSet<int>();
        var uncapped = new SortedSet<int>();
        int refusals = 0;
        string? failure = null;
        while (open.Count > 0)
        {
            var ended = await Task.WhenAny(open.Select(i => calls[i]));
            int i = Array.IndexOf(calls, ended);
            open.Remove(i);
            if (!ended.IsCompletedSuccessfully || ended.Result.Refused is not { } refused)
            {
                continue;
            }
            seen.Add(refused.Worker);
            if (failure is not null)
            {
                unplaced.Add(i);
                continue;
            }
            var now = context.CurrentUtcDateTime;
            firstRefused[i] ??= now;
            // With workers enough for the cap a slice may still be on its way between them at the start: it starts late, its lag reported.
            int needed = Needed(orders.Length, cap!.Value);
            var giveUpAt = refused.Rerun ? firstRefused[i]!.Value + RerunWait : orders[i].StartAtUtc + (seen.Count >= needed ? LateStartWait : TimeSpan.Zero);
            if (now < giveUpAt || placement is null)
            {
                // Past its time without a placement, the slice runs wherever it lands (and the step says it was not spread).
                bool lift = now >= giveUpAt;
                orders[i] = orders[i] with { SlicesPerWorker = lift ? null : cap, HandBacks = orders[i].HandBacks + 1 };
                calls[i] = lift ? Call(context, orders[i]) : CallAfterAsync(context, orders[i]);
                open.Add(i);
                refusals++;
                if (lift)
                {
                    uncapped.Add(i);
                }
                continue;
            }
            unplaced.Add(i);
            failure = await StopAsync(context, orders[0].RunId, "");
        }
        if (unplaced.Count > 0)
        {
            failure = Unmet(placement!, orders, unplaced, seen, roster.Min(w => w.HubPartitions)) + failure;
        }
        return new Dispatch(calls, failure, refusals, cap, uncapped.Count > 0 ? Lifted(orders[0].Workload, uncapped, cap) : null);
    }

    /// <summary>
    /// A handed-back order queued again after <see cref="HandBackPause"/>, from an orchestration on another partition
    /// (<see cref="HandedBackSlice"/>), so that partition's worker, not the one that refused it, is the first to take it.
    /// </summary>
    private static async Task<SliceOutcome> CallAfterAsync(TaskOrchestrationContext context, SliceOrder order)
    {
        await context.CreateTimer(HandBackPause(order.HandBacks), CancellationToken.None);
        return await HandedBackSlice.CallAsync(context, order);
    }

    /// <summary>
    /// How long the order waits before its <paramref name="handBacks"/>th call: 0.5 s, 1 s, then 2 s, so a slice no worker
    /// has room for is called about every 2 s (each call is a few history events), not as fast as the hub turns round.
    /// </summary>
    public static TimeSpan HandBackPause(int handBacks) => TimeSpan.FromSeconds(Math.Min(2, 0.5 * Math.Pow(2, Math.Max(0, handBacks - 1))));

    /// <summary>The most calls the pauses allow a slice within <paramref name="window"/> (beside its first): a bound the rule sets, whatever the hub does.</summary>
    public static int MaxHandBacks(TimeSpan window)
    {
        int calls = 0;
        var spent = HandBackPause(1);
        while (spent <= window)
        {
            calls++;
            spent += HandBackPause(calls + 1);
        }
        return calls;
    }

    /// <summary>A slice runs as one activity, or as a chain of segments in an orchestration of its own.</summary>
    private static Task<SliceOutcome> Call(TaskOrchestrationContext context, SliceOrder order) => order.Segments is null
        ? ActivityList.RunSlice.CallAsync(context, order)
        : context.CallSubOrchestratorAsync<SliceOutcome>(SegmentedSlice.Name, new SegmentedSliceInput(order));

    /// <summary>Stops the slices that did start (the run's stop signal); "" when sent, else why it could not be.</summary>
    private static async Task<string> StopAsync(TaskOrchestrationContext context, string runId, string none)
    {
        try
        {
            await ActivityList.StopRun.CallAsync(context, runId);
            return none;
        }
        catch (TaskFailedException ex)
        {
            return $" (the stop signal to the slices that started could not be written: {ex.FailureDetails.ErrorMessage})";
        }
    }

    /// <summary>
    /// The one line of a placement that cannot be met: the cap, the slices, the workers seen, and the cause and cure. With fewer
    /// of the hub's partitions (<paramref name="hubPartitions"/>, from the roster) than workers needed, the workers were up but a
    /// handed-back slice could not reach them all, and no start delay helps.
    /// </summary>
    public static string Unmet(PlacementSpec placement, IReadOnlyList<SliceOrder> orders, IEnumerable<int> unplaced, IReadOnlyCollection<string> workers, int? hubPartitions = null)
    {
        int n = placement.SlicesPerWorker, needed = Needed(orders.Count, n);
        string seen = workers.Count == 0 ? "no worker" : $"{workers.Count} worker(s) ({string.Join(", ", workers)})";
        string at = orders[0].StartAtUtc.ToString("HH:mm:ss'Z'", CultureInfo.InvariantCulture);
        return
            $"{orders[0].Workload}: placement.slicesPerWorker {n} cannot be met: {orders.Count} slices need {needed} workers, and by the planned start " +
            $"{at} {seen} had taken slices or were on the hub; slice(s) {Ranges(unplaced)} found no worker with room. " + Cure(orders.Count, needed, workers.Count, hubPartitions);
    }

    private static string Cure(int slices, int needed, int workers, int? hubPartitions)
    {
        if (workers >= needed && hubPartitions is { } partitions && partitions < needed)
        {
            // A handed-back slice reaches a worker through a partition it owns: beyond the hub's partitions a worker owns none.
            string more = partitions < HubPartitions.Most ? $"a hub of {Math.Min(needed, HubPartitions.Most)} partitions or more (partitionCount, at most {HubPartitions.Most}: " +
                "local shared hubs have 16; a Function App sets it in host.json's durableTask.storageProvider), or " : "";
            return $"Cause: the hub has {partitions} control-queue partitions for {workers} workers, and a handed-back slice reaches a worker only through a " +
                $"partition it owns, so {workers - partitions} worker(s) could take a slice only when their own queue poll came first. " +
                $"Cure: {more}placement.slicesPerWorker {Needed(slices, partitions)}, so that {partitions} workers can hold them";
        }
        // Enough workers were up: the slices were still being handed back between them when the start came.
        return workers >= needed
            ? "Cure: a longer startDelaySeconds: the workers could hold them, but each hand-back costs about a second (a worker's queue poll) " +
              $"and the slices had not all reached a worker with room {LateStartWait.TotalSeconds:0} s after the start"
            : $"Cure: start more workers (or Function App instances), raise placement.slicesPerWorker to {Needed(slices, Math.Max(1, workers))}, " +
              "or give scale-out time with a longer startDelaySeconds";
    }

    /// <summary>⌈<paramref name="slices"/> ÷ <paramref name="per"/>⌉.</summary>
    private static int Needed(int slices, int per) => (slices + per - 1) / per;

    private static string Lifted(string workload, IEnumerable<int> slices, int? cap) =>
        $"{workload}: slice(s) {Ranges(slices)} found no worker with room under the even share ({cap} per worker) by the planned start and ran " +
        "wherever a worker took them (a worker on the roster may have stopped)";

    /// <summary>"0-3, 5, 7": slice indexes as runs.</summary>
    public static string Ranges(IEnumerable<int> slices)
    {
        var parts = new List<string>();
        foreach (var group in slices.Order().Select((s, k) => (s, k)).GroupBy(p => p.s - p.k))
        {
            var run = group.Select(p => p.s).ToList();
            parts.Add(run.Count == 1 ? $"{run[0]}" : $"{run[0]}-{run[^1]}");
        }
        return string.Join(", ", parts);
    }
}

/// <summary>A step's slice calls after placement: each slice's last call, and why the placement failed (null when met).</summary>
/// <param name="Refusals">Calls a worker handed back for lack of room (each one a round trip through the hub).</param>
/// <param name="Lifted">Without a placement: the slices that ran uncapped past the start instant, said as a note.</param>
public sealed record Dispatch(Task<SliceOutcome>[] Calls, string? Failure, int Refusals, int? Cap, string? Lifted);
