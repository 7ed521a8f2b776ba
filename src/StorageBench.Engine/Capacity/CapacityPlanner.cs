using System.Text.Json;

namespace StorageBench.Engine.Capacity;

/// <summary>
/// From measured steps to a plan. Pure: the same steps, targets and prices give the same plan. It scales out what was
/// measured — one slice at its concurrency, one partition, one account, one driver core — and, for Azure Storage,
/// respects the documented targets; it never extrapolates a unit's capacity past what was measured or documented.
/// This file picks the operating point and holds the rules every workload's plan shares; each workload's own plan is its
/// room's <see cref="CapacityModel"/> (its CapacityPlanner.*.cs), and the sizing of accounts, instances and slices is in ….Sizing.cs.
/// </summary>
public static partial class CapacityPlanner
{
    public static string EntitiesPerSecond => WorkloadKind.EntitiesPerSecond;
    public static string MegabytesPerSecond => WorkloadKind.MegabytesPerSecond;

    /// <summary>A step counts as sustained when no more than this share of its requests failed (the default maxUnstoredShare).</summary>
    public const double MaxFailedShare = 0.01;

    /// <summary>Assumed: drive the driver's cores at most this busy, so a slice keeps its schedule.</summary>
    public const double DriverCpuUtilization = 0.7;

    /// <summary>Assumed: in-flight slots per slice for twice the requests the measured p99 keeps in flight, so an open loop can catch up after a stall.</summary>
    public const double InFlightHeadroom = 2;

    public static PlanOutcome Plan(IReadOnlyList<MeasuredStep> steps, PlanRequest request, ScalabilityTargets targets, PriceTable prices)
    {
        var (room, unplanned) = Choose(request.Workload, request.Unit);
        if (room?.Capacity is not { } model)
        {
            return Refuse(unplanned!);
        }
        string workload = room.Name;
        var measured = steps.Where(s => s.Workload == workload).ToList();
        if (measured.Count == 0)
        {
            var read = steps.Select(s => s.Workload).Distinct().ToList();
            return Refuse($"no {workload} step among the {steps.Count} step(s) read: a plan in {request.Unit} needs a measured {workload} run" +
                (read.Count > 0 ? $" (the steps read are of {string.Join(", ", read)}: --workload names the one to plan)" : ""));
        }
        var sustained = measured.Where(s => !s.BeyondKnee && s.Rate > 0 && s.FailedShare <= MaxFailedShare).ToList();
        if (sustained.Count == 0)
        {
            return Refuse($"none of the {measured.Count} {workload} step(s) sustained its rate: each failed more than {MaxFailedShare * 100:0}% of its requests, {room.Kind.StoredWord} nothing, or was past a saturation knee");
        }
        var kinds = sustained.Select(s => s.TargetKind).Distinct().ToList();
        if (kinds.Count > 1)
        {
            return Refuse($"the steps were measured against {string.Join(" and ", kinds)}: plan from runs against one kind of target (their limits differ)");
        }
        if (model.Narrow(sustained, request) is var (narrowed, refusal) && refusal is not null)
        {
            return Refuse(refusal);
        }
        sustained = narrowed;
        if (request.P99Ms is { } bound)
        {
            var fast = sustained.Where(s => s.LatencyP99Ms <= bound).ToList();
            if (fast.Count == 0)
            {
                var best = sustained.MinBy(s => s.LatencyP99Ms)!;
                return Refuse($"no measured operating point had p99 within {bound:0.#} ms: the lowest was {best.LatencyP99Ms:0.#} ms ({best.Label}); more units do not lower a request's latency");
            }
            sustained = fast;
        }
        // The operating point: the step whose slices each sustained the most, at the lowest concurrency for a tie.
        var op = sustained.OrderByDescending(s => s.Rate / s.Slices).ThenBy(s => model.InFlight(s.Spec)).First();
        return model.Plan(sustained, op, request, targets, prices);
    }

    /// <summary>The workloads a plan can be for: those whose room brings a capacity model, in the order of <see cref="WorkloadList"/>.</summary>
    public static IEnumerable<Workload> Planning => WorkloadList.All.Where(w => w.Capacity is not null);

    /// <summary>"entities/s (tableInsert, tableRead) or MB/s (blobUpload, …)": the units a plan is in, and the workloads of each.</summary>
    public static string Units => string.Join(" or ", Planning.GroupBy(w => w.Kind.RateUnit).Select(g => $"{g.Key} ({string.Join(", ", g.Select(w => w.Name))})"));

    /// <summary>
    /// The workload a plan is for: the one named, which must have a capacity model and, when a unit is given too, plan in
    /// it; without a name, the first that plans in <paramref name="unit"/> (entities/s: tableInsert, MB/s: blobUpload).
    /// Null and why when there is none; the reason starts with the name or unit it is about.
    /// </summary>
    public static (Workload? Room, string? Error) Choose(string? workload, string? unit)
    {
        if (workload is not null)
        {
            var named = Planning.FirstOrDefault(w => w.Name == workload);
            return named is null
                ? (null, $"\"{workload}\" must be a workload that plans: {string.Join(", ", Planning.Select(w => $"{w.Name} ({w.Kind.RateUnit})"))}")
                : unit is not null && unit != named.Kind.RateUnit
                    ? (null, $"\"{workload}\" plans in {named.Kind.RateUnit}, not in {unit}: give the unit it plans in, or no unit")
                    : (named, null);
        }
        var first = Planning.FirstOrDefault(w => w.Kind.RateUnit == (unit ?? EntitiesPerSecond));
        return first is null ? (null, $"no workload plans in {unit}: {Units}") : (first, null);
    }

    /// <summary>
    /// The spec with <paramref name="workload"/>'s section and no other workload's: a planned spec runs only what it
    /// plans, whatever else the measured run ran. Every room's section is its name in the spec's JSON.
    /// </summary>
    public static RunSpec Only(RunSpec spec, string workload)
    {
        var root = JsonSerializer.SerializeToNode(spec, RunSpecParser.Options)!.AsObject();
        foreach (var other in WorkloadList.All.Where(w => w.Name != workload))
        {
            root.Remove(other.Name);
        }
        return root.Deserialize<RunSpec>(RunSpecParser.Options)!;
    }

    /// <summary>The written spec keeps only the planned workload and must pass the validator the run command applies, or the plan is not one.</summary>
    internal static PlanOutcome Finish(CapacityPlan planned)
    {
        // The plan's instances are machines: at most slices ÷ instances of its slices share one worker, so the run spreads over that many.
        var placement = new PlacementSpec { SlicesPerWorker = (planned.Slices + planned.Instances - 1) / Math.Max(1, planned.Instances) };
        var plan = planned with { Spec = AcceptedExecutions.Fitted(Only(planned.Spec, planned.Workload) with { Placement = placement }) };
        var errors = RunSpecValidator.Validate(plan.Spec);
        return errors.Count == 0 ? new(plan, null) : Refuse("the spec that would carry the plan out is invalid: " + string.Join("; ", errors));
    }

    /// <param name="gigabytesOutPerHour">Bytes read out of the accounts (downloads), priced at dataTransferOutPerGb when the price table has it.</param>
    internal static PlanCost Cost(PriceTable prices, double requestsPerHour, double per10k, int instances, int memoryMb, double gigabytesPerHour, double perGbMonth,
        double gigabytesOutPerHour = 0) =>
        new(prices.Currency, prices.File, requestsPerHour, requestsPerHour / 10_000 * per10k,
            prices.FunctionsFlexConsumptionOnDemandPerGbSecond is { } perGbSecond ? instances * (memoryMb / 1024.0) * 3600 * perGbSecond : null,
            gigabytesPerHour, gigabytesPerHour * perGbMonth, gigabytesOutPerHour, gigabytesOutPerHour * prices.DataTransferOutPerGb);

    /// <summary>Driver CPU per unit: the operating point's, else the highest any sustained step recorded (the cautious one).</summary>
    internal static (MeasuredStep Step, double MicrosecondsPerUnit)? CpuOf(MeasuredStep op, List<MeasuredStep> sustained)
    {
        if (op.CpuMicrosecondsPerUnit is { } own && own > 0)
        {
            return (op, own);
        }
        var other = sustained.Where(s => s.CpuMicrosecondsPerUnit > 0).MaxBy(s => s.CpuMicrosecondsPerUnit);
        return other is null ? null : (other, other.CpuMicrosecondsPerUnit!.Value);
    }

    /// <summary>
    /// How long the written spec runs: as asked, else as long as the operating point's step ran, but at least long
    /// enough that the last request's latency (the step's p50) is at most 5% of the measured window: a run's rate is
    /// counted until its last request returns, so a short run at high latency could not show the rate it held.
    /// </summary>
    internal static double Duration(PlanRequest request, MeasuredStep op, WorkloadSpec w) => request.DurationSeconds
        ?? Math.Max(w.DurationSeconds > 0 ? w.DurationSeconds : 30, Math.Ceiling(w.WarmupSeconds + DrainWindows * op.LatencyP50Ms / 1000));

    /// <summary>The measured window is at least this many p50 latencies long (the drain after the last send is at most 5% of it).</summary>
    public const double DrainWindows = 20;

    internal static string Scenario(string measured) => (measured.Length > 58 ? measured[..58] : measured) + "-plan";

    internal static int RoundUp(int value, int multiple) => (value + multiple - 1) / multiple * multiple;

    internal static string? Beyond(double needed, double most, string what, string limit) =>
        needed > most ? $"the target needs {needed:N0} {what}, more than the {most:N0} {limit}: beyond what can be planned from these measurements" : null;

    internal static PlanOutcome Refuse(string reason) => new(null, reason);
}
