using System.Text.Json;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// A workload's room: everything that belongs to one kind of measured work, in its own folder — its spec section and
/// its rules, its plan (how a step splits into slices), its seeding (data it reads, made outside the measured window),
/// its loop on both drivers, its verification, its summary figures and request lines (what cost prices), and its
/// capacity model. The orchestrators, the activities, the validator, reports, rows and telemetry go through
/// <see cref="WorkloadList.All"/> and never branch on a workload's name.
/// </summary>
public abstract class Workload
{
    /// <summary>Its name, units and rate (what reports, rows, telemetry and the dashboard show).</summary>
    public abstract WorkloadKind Kind { get; }

    public string Name => Kind.Name;

    /// <summary>The storage service its target needs (the step creates and deletes a table or a container for it).</summary>
    public abstract TargetService Service { get; }

    /// <summary>
    /// Added to the step's table or container name to make this workload's own ("" for the first of each service), so
    /// what one workload writes or seeds never meets another's count.
    /// </summary>
    public virtual string TargetSuffix => "";

    /// <summary>The field of its section that sets a fixed count ("entityCount"), which a timed run (durationSeconds &gt; 0) does not use.</summary>
    public abstract string CountField { get; }

    /// <summary>Its section of the spec; null when the spec does not ask for it.</summary>
    public abstract WorkloadSpec? SectionOf(RunSpec spec);

    /// <summary>Adds an error per broken rule of its section, each naming "&lt;name&gt;.&lt;field&gt;", the value and the rule.</summary>
    public abstract void Validate(WorkloadSpec section, SpecChecks errors);

    /// <summary>Its slices for one step: pure and deterministic (the orchestrator calls it on replay).</summary>
    public abstract IReadOnlyList<SliceOrder> Plan(StepPlan stepPlan, RunSpec spec);

    /// <summary>
    /// True when the workload reads data it must first write: then every slice's <see cref="SeedAsync"/> runs (its own
    /// activity, in parallel, outside the measured window) before the measured slices are planned and started.
    /// </summary>
    public virtual bool Seeds => false;

    /// <summary>Writes what the slice will read; safe to run twice (an activity runs at least once).</summary>
    public virtual Task<SeedResult> SeedAsync(SliceOrder order, StorageTarget target, CancellationToken ct) =>
        throw new NotSupportedException($"{Name} reads nothing it must write first");

    /// <summary>The slice's progress row before it starts: what it plans (in <see cref="WorkloadKind.CountedUnit"/>) and for how long.</summary>
    public abstract SliceProgress ProgressOf(SliceOrder order);

    /// <summary>Runs one slice on the driver its spec chose; canceling <paramref name="ct"/> stops it sending, and its figures stay true.</summary>
    public abstract Task<SliceResult> RunSliceAsync(SliceOrder order, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger);

    /// <summary>What verification needs from the step (small: it crosses the orchestration boundary).</summary>
    public abstract VerifyOrder VerifyOrderOf(RunSpec spec, StepPlan stepPlan, IReadOnlyList<SliceResult> slices);

    /// <summary>Checks what storage holds (or returned) against what the slices reported.</summary>
    public abstract Task<VerificationResult> VerifyAsync(VerifyOrder order, IReadOnlyList<StorageTarget> targets, CancellationToken ct);

    /// <summary>The step's figures for this workload: merged histograms and timelines, its own units, its request lines.</summary>
    public abstract WorkloadSummary Summarize(RunSpec spec, IReadOnlyList<SliceResult> slices, VerificationResult verified);

    /// <summary>Its seeding's requests as a line the cost estimate prices, from what the seed activities counted on the wire; null when it seeds nothing.</summary>
    public virtual TransactionLine? SeedingLine(IReadOnlyList<SeedResult> seeds) => null;

    /// <summary>How <c>storagebench plan</c> scales what it measured; null when it has no capacity model (plan then refuses its unit).</summary>
    public virtual CapacityModel? Capacity => null;

    /// <summary>The knobs it ran with, for telemetry's dimensions and the report (camelCase name, invariant value).</summary>
    public abstract IEnumerable<(string Name, string Value)> Parameters(WorkloadSpec section);

    /// <summary>The accepted executions' attempt ids, by slice index: only what they wrote is counted.</summary>
    protected static string[] Attempts(IEnumerable<SliceResult> slices) => SliceExecutions.Attempts(slices);

    /// <summary>Each accepted execution's blob content MD5, by attempt id (a slice run as segments has one per segment).</summary>
    protected static Dictionary<string, string> ContentByAttempt(IEnumerable<SliceResult> slices) =>
        slices.SelectMany(s => s.Executions()).ToDictionary(e => e.AttemptId, e => e.ContentMd5 ?? "");

    /// <summary>A spec number as an error shows it.</summary>
    protected static string Num(double v) => SpecChecks.Num(v);

    /// <summary>A parameter's value as telemetry carries it (invariant culture).</summary>
    protected static string I(double v) => v.ToString(System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>The JSON every room packs its plans and orders with (the orchestration's own payload form: camelCase).</summary>
    public static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);
}

/// <summary>A room whose section, slice plan and verification order have their own types.</summary>
public abstract class Workload<TSpec, TPlan, TVerify> : Workload
    where TSpec : WorkloadSpec
{
    public sealed override void Validate(WorkloadSpec section, SpecChecks errors) => Validate((TSpec)section, errors);

    public sealed override IReadOnlyList<SliceOrder> Plan(StepPlan stepPlan, RunSpec spec) =>
        [.. Plan(stepPlan, (TSpec)SectionOf(spec)!, spec.Client).Select(Pack)];

    public sealed override Task<SeedResult> SeedAsync(SliceOrder order, StorageTarget target, CancellationToken ct) => SeedAsync(Unpack(order), target, ct);

    public sealed override SliceProgress ProgressOf(SliceOrder order) => ProgressOf(order, Unpack(order));

    public sealed override Task<SliceResult> RunSliceAsync(SliceOrder order, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger) =>
        RunSliceAsync(Unpack(order), target, time, ct, live, logger);

    public sealed override VerifyOrder VerifyOrderOf(RunSpec spec, StepPlan stepPlan, IReadOnlyList<SliceResult> slices) =>
        new(Name, JsonSerializer.SerializeToElement(VerifyOrderOf((TSpec)SectionOf(spec)!, stepPlan, slices), Json));

    public sealed override Task<VerificationResult> VerifyAsync(VerifyOrder order, IReadOnlyList<StorageTarget> targets, CancellationToken ct) =>
        VerifyAsync(order.Input.Deserialize<TVerify>(Json)!, targets, ct);

    public sealed override WorkloadSummary Summarize(RunSpec spec, IReadOnlyList<SliceResult> slices, VerificationResult verified) =>
        Summarize((TSpec)SectionOf(spec)!, slices, verified);

    public sealed override IEnumerable<(string Name, string Value)> Parameters(WorkloadSpec section) => Parameters((TSpec)section);

    protected abstract void Validate(TSpec section, SpecChecks errors);

    /// <summary>One plan per slice, in slice order.</summary>
    protected abstract IReadOnlyList<TPlan> Plan(StepPlan stepPlan, TSpec section, ClientSettings client);

    protected abstract SliceHeader HeaderOf(TPlan plan);

    protected virtual Task<SeedResult> SeedAsync(TPlan plan, StorageTarget target, CancellationToken ct) =>
        throw new NotSupportedException($"{Name} reads nothing it must write first");

    protected abstract SliceProgress ProgressOf(SliceOrder order, TPlan plan);

    protected abstract Task<SliceResult> RunSliceAsync(TPlan plan, StorageTarget target, TimeProvider time, CancellationToken ct, LiveSlice? live, ILogger? logger);

    protected abstract TVerify VerifyOrderOf(TSpec section, StepPlan stepPlan, IReadOnlyList<SliceResult> slices);

    protected abstract Task<VerificationResult> VerifyAsync(TVerify order, IReadOnlyList<StorageTarget> targets, CancellationToken ct);

    protected abstract WorkloadSummary Summarize(TSpec section, IReadOnlyList<SliceResult> slices, VerificationResult verified);

    protected abstract IEnumerable<(string Name, string Value)> Parameters(TSpec section);

    /// <summary>The order for one of its plans (tests build orders from plans too).</summary>
    public SliceOrder Pack(TPlan plan)
    {
        var h = HeaderOf(plan);
        return new SliceOrder(Name, h.RunId, h.StepId, h.SliceIndex, h.StartAtUtc, h.TargetIndex, JsonSerializer.SerializeToElement(plan, Json));
    }

    public TPlan Unpack(SliceOrder order) => order.Plan.Deserialize<TPlan>(Json)!;
}

/// <summary>What a room's plans all say about their slice.</summary>
public sealed record SliceHeader(string RunId, string StepId, int SliceIndex, DateTime StartAtUtc, int TargetIndex);

/// <summary>What a step gives a workload to plan with: its ids, the workload's own table or container, the start instant, the target accounts.</summary>
public sealed record StepPlan(string RunId, string StepId, string TargetName, DateTime StartAtUtc, int TargetAccounts = 1);

/// <summary>One slice of a workload's step as it crosses the orchestration boundary: what every slice has, and its room's own plan.</summary>
[CarriesFigures(SliceResult.HistogramCount, 1)]
public sealed record SliceOrder(string Workload, string RunId, string StepId, int SliceIndex, DateTime StartAtUtc, int TargetIndex, JsonElement Plan)
{
    /// <summary>At most this many slices of the step run at once on one worker (placement); null: no cap.</summary>
    public int? SlicesPerWorker { get; init; }

    /// <summary>How many times a worker with no room handed this order back before this call (placement).</summary>
    public int HandBacks { get; init; }

    /// <summary>A timed slice longer than the spec's segmentSeconds: how it is cut; null when it runs whole as one activity.</summary>
    public SegmentPlan? Segments { get; init; }

    /// <summary>The segment this call runs (set by the slice's own orchestration); null: the whole slice.</summary>
    public SliceSegment? Segment { get; init; }

    /// <summary>The last segment only: the figures of the segments before it, so it stores the whole slice's row.</summary>
    public SliceResult? SegmentsSoFar { get; init; }
}

/// <summary>A workload's verification input as it crosses the orchestration boundary.</summary>
public sealed record VerifyOrder(string Workload, JsonElement Input);

/// <summary>What a slice's seeding wrote: requests sent (counted on the wire, retries included), units written, and its writes (a transaction, a blob) that did not land.</summary>
public sealed record SeedResult(long Requests, long Units, long Failed);
