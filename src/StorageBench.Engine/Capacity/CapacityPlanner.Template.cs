
namespace StorageBench.Engine.Capacity;

/// <summary>
/// The one capacity-plan template every room's planner fills in: what a room knows (its unit, its requests, its own limits
/// and notes, its section of the written spec) goes in; the sizing, the limits every plan has, the notes on accounts and
/// Azurite, the duration and the plan itself come out alike.
/// </summary>
public static partial class CapacityPlanner
{
    /// <summary>Where every planner starts: the target, whether it is Azure, the documented file's words, the notes so far.</summary>
    internal sealed record PlanStart(double Target, bool Azure, string Documented, List<string> Notes)
    {
        public static PlanStart Of(MeasuredStep op, PlanRequest request, ScalabilityTargets targets) =>
            new(request.Target, op.TargetKind != "Azurite", $"documented: {targets.File}, read {targets.ReadOn}", []);
    }

    /// <summary>A room's part of a sized plan (<see cref="Complete"/>).</summary>
    /// <param name="Limits">The room's limits beside slices and accounts (partitions, blobs).</param>
    /// <param name="Notes">The room's own notes, after the accounts note and before the Azurite one.</param>
    /// <param name="Section">Its section of the written spec, given the slices and the duration.</param>
    /// <param name="Cost">The cost per hour, given the instances.</param>
    internal sealed record PlanParts(Workload Room, RateUnit Unit, double PerSlice, string SliceBasis, int InFlightPerSlice, IReadOnlyList<PlanLimit> Limits,
        IReadOnlyList<string> Notes, Func<int, double, RunSpec> Section, Func<int, PlanCost> Cost, int Partitions = 0);

    /// <summary>The plan every room's planner ends with: limits, driver cores, the notes every plan has, the duration and the written spec.</summary>
    internal static PlanOutcome Complete(PlanStart s, MeasuredStep op, PlanRequest request, Sizing z, PlanParts p)
    {
        var limits = new List<PlanLimit> { new("slices", z.Slices, p.PerSlice, p.SliceBasis) };
        limits.AddRange(p.Limits.Where(l => l.Name == "partitions"));
        limits.Add(new("accounts", z.Accounts, z.PerAccount, z.AccountBasis));
        limits.AddRange(p.Limits.Where(l => l.Name != "partitions"));
        var notes = s.Notes;
        z.AddDriverCores(limits, notes);
        if (z.Accounts > 1)
        {
            bool reads = p.Room.Seeds;
            notes.Add($"spreads over {z.Accounts} storage accounts: {p.Unit.Format(s.Target)} is more than one account {(reads ? "serves" : "takes")} " +
                $"({p.Unit.Format(z.PerAccount)}, {z.AccountBasis}); name them in STORAGEBENCH_TARGET_{p.Room.Service.ToString().ToUpperInvariant()}_ENDPOINTS " +
                $"(slice i {(reads ? "reads from" : "writes to")} account i mod {z.Accounts}); that accounts add up is assumed from the per-account targets, not measured");
        }
        notes.AddRange(p.Notes);
        if (!s.Azure)
        {
            notes.Add($"Azurite has no documented targets: its {p.Unit.ScalesOut.Replace(" or ", " and ", StringComparison.Ordinal).Replace("accounts", "account", StringComparison.Ordinal)} " +
                "are sized from what Azurite was measured to do; Function App instances and compute cost are what the same driver CPU would need on Flex Consumption");
        }
        double duration = Duration(request, op, p.Room.SectionOf(op.Spec)!);
        return Finish(new CapacityPlan
        {
            Request = request,
            Workload = p.Room.Name,
            TargetKind = op.TargetKind,
            OperatingPoint = op,
            Partitions = p.Partitions,
            Slices = z.Slices,
            InFlightPerSlice = p.InFlightPerSlice,
            Accounts = z.Accounts,
            Instances = z.Instances,
            DriverCores = z.Cores,
            Limits = limits,
            Bottleneck = limits.MinBy(l => l.Capacity)!,
            ExpectedThroughput = s.Target,
            Cost = p.Cost(z.Instances),
            Notes = notes,
            Spec = p.Section(z.Slices, duration) with { Scenario = Scenario(op.Spec.Scenario) },
        });
    }

    /// <summary>A section of a plan's written spec: it runs this long, keeps its warm-up when shorter, and counts no warm-up operations.</summary>
    internal static T ForDuration<T>(T section, double duration) where T : WorkloadSpec =>
        (T)(section with { DurationSeconds = duration, WarmupSeconds = section.WarmupSeconds < duration ? section.WarmupSeconds : 0, WarmupOperations = 0 });

    /// <summary>What a blob room's requests are, for <see cref="PlanBlobs"/>.</summary>
    /// <param name="RequestMb">MB one measured request moves (a block, a page range, an append, a range or a whole blob read).</param>
    /// <param name="RequestWords">How the documented basis names those requests ("4 MB blocks").</param>
    /// <param name="BlobsPerSlice">Blobs a slice works on at once: the per-blob request target caps each.</param>
    /// <param name="InFlightWords">How the measured basis names what a slice kept in flight ("4 blocks").</param>
    /// <param name="RequestsPerHour">Billed requests an hour at the target rate.</param>
    /// <param name="Noun">What the room does, for the closed-loop note ("blob uploads").</param>
    internal sealed record BlobRequests(string Noun, double RequestMb, string RequestWords, int BlobsPerSlice, int InFlightPerSlice, string InFlightWords, double RequestsPerHour,
        double Per10k, double GigabytesStoredPerHour, double GigabytesOutPerHour);

    /// <summary>
    /// The plan of a blob room: on Azure each slice's blobs are capped by the per-blob request target, each account by its
    /// requests or its ingress (egress for a room that reads); blob uploads and downloads have no open-loop rate.
    /// </summary>
    internal static PlanOutcome PlanBlobs(Workload room, List<MeasuredStep> sustained, MeasuredStep op, PlanRequest request, ScalabilityTargets targets, PriceTable prices,
        BlobRequests r, Func<int, double, RunSpec> section, Func<PlanStart, Sizing, IReadOnlyList<PlanLimit>>? limits = null)
    {
        var s = PlanStart.Of(op, request, targets);
        var unit = new RateUnit(v => $"{v:N1} {room.Kind.RateUnit}", "slices or accounts", room.Kind.UnitSingular);
        double perSlice = op.Rate / op.Slices;
        string sliceBasis = $"measured: {op.Label} ({op.Rate:N1} {room.Kind.RateUnit} over {op.Slices} slice(s) at {r.InFlightWords} in flight each)";
        double perBlob = targets.BlobRequestsPerSecond * r.RequestMb;
        if (s.Azure && perSlice > r.BlobsPerSlice * perBlob)
        {
            perSlice = r.BlobsPerSlice * perBlob;
            // A reading slice may have several blobs at a time; a writing one has one.
            string atOnce = room.Seeds ? $", {r.BlobsPerSlice} blob(s) at a time per slice" : "";
            sliceBasis = $"{s.Documented} ({targets.BlobRequestsPerSecond:N0} requests/s per blob × {r.RequestWords}{atOnce}; measured more: {op.Label})";
        }
        (double, string)? documentedAccount = null;
        if (s.Azure)
        {
            bool reads = room.Seeds;
            double gbps = reads ? targets.AccountEgressGbps : targets.AccountIngressGbps;
            double byRequests = targets.AccountRequestsPerSecond * r.RequestMb, byBandwidth = gbps * 1e3 / 8;
            documentedAccount = (Math.Min(byRequests, byBandwidth), s.Documented + (byBandwidth <= byRequests
                ? $" ({gbps:0.#} Gbps {(reads ? "egress" : "ingress")})"
                : $" ({targets.AccountRequestsPerSecond:N0} requests/s of {r.RequestWords})"));
        }
        var (z, refusal) = Size(unit, sustained, op, request, targets, s.Documented, perSlice, documentedAccount);
        if (z is null)
        {
            return Refuse(refusal!);
        }
        var own = limits?.Invoke(s, z) ?? [];
        if (own.FirstOrDefault(l => l.Name == "blobs" && l.Units > 100_000) is { } blobs)
        {
            return Refuse($"{unit.Format(s.Target)} needs {blobs.Units:N0} blobs, more than the 100,000 a spec may seed");
        }
        return Complete(s, op, request, z, new PlanParts(room, unit, perSlice, sliceBasis, r.InFlightPerSlice, own,
            [$"{r.Noun} have no open-loop rate: the written spec runs its slices closed loop, so its run may exceed the target"], section,
            instances => Cost(prices, r.RequestsPerHour, r.Per10k, instances, request.InstanceMemoryMb, r.GigabytesStoredPerHour, prices.BlobStoragePerGbMonth, r.GigabytesOutPerHour)));
    }
}
