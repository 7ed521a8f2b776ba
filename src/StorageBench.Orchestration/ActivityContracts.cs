using StorageBench.Engine.Measurement;
using StorageBench.Engine.Targets;

namespace StorageBench.Orchestration;

/// <summary>Activity names shared by the orchestrators, the local task hub (BenchmarkTaskHub) and the Function App.</summary>
public static class ActivityNames
{
    public const string DescribeEnvironment = "DescribeEnvironment";
    public const string PrepareTargets = "PrepareTargets";
    public const string SeedSlice = "SeedSlice";
    public const string RunSlice = "RunSlice";
    public const string Verify = "Verify";
    public const string DeleteTargets = "DeleteTargets";
    public const string StoreStep = "StoreStep";
    public const string EmitStepTelemetry = "EmitStepTelemetry";
    public const string CheckRegression = "CheckRegression";
    public const string StoreRun = "StoreRun";
    public const string EmitRunTelemetry = "EmitRunTelemetry";
    public const string CleanupLeftovers = "CleanupLeftovers";
    public const string ListWorkers = "ListWorkers";
    public const string StopRun = "StopRun";
}

/// <summary>The run orchestrator's input. Host names what started it (local-cli, http, timer).</summary>
/// <param name="CheckRegression">Compare the result with the scenario's trailing baseline (the nightly run does).</param>
/// <param name="CleanupOlderThanHours">First delete this tool's tables and containers older than this (the nightly run does: a killed driver leaves its step's behind).</param>
public sealed record RunRequest(RunSpec Spec, string Host, bool CheckRegression = false, double? CleanupOlderThanHours = null)
{
    /// <summary>Requests the preflight before the start sent to the targets: the run's summary counts them with its own (<see cref="TargetSideRequests"/>).</summary>
    public long PreflightRequests { get; init; }

    /// <summary>
    /// Whether a worker of the run may send telemetry. False only where the starter is the run's one worker and has no
    /// Application Insights connection (a CLI run without one): the telemetry activities would send nothing, and the run
    /// skips them, two hops of its orchestration.
    /// </summary>
    public bool Telemetry { get; init; } = true;
}

/// <summary>What a cleanup deleted (or, dry, would delete): how many, and the first names.</summary>
/// <param name="Requests">Requests it sent to the targets (listing and deleting), counted on the wire.</param>
public sealed record CleanupResult(int Count, IReadOnlyList<string> Names, long Requests = 0);

/// <summary>
/// Custom status while running: which phase, of which step, for progress in the status endpoint.
/// <paramref name="Live"/> is never set by an orchestrator: the reader adds it from the slices' own reports.
/// </summary>
public sealed record RunProgress(string Phase, string? Workload, int Slices, int Step = 0, int Steps = 1, WorkloadProgress? Live = null);

/// <summary>What the activity host looks like: facts the orchestrator may not read itself (they are not replay-safe).</summary>
public sealed record EnvironmentInfo(string TargetKind, string Machine, string Runtime, int ProcessorCount, int TargetAccounts = 1)
{
    /// <summary>How busy the machine was when described; a second description at the run's end gives the run's share.</summary>
    public MachineSnapshot? MachineState { get; init; }
    public string? ToolVersion { get; init; }
    public string? ToolCommit { get; init; }
    /// <summary>Azurite's Server header (its version), set from a step's first requests; null for a real account.</summary>
    public string? EmulatorVersion { get; init; }
    public IReadOnlyDictionary<string, string>? AzureSdk { get; init; }
    public string? GarbageCollector { get; init; }

    /// <summary>The run's environment, with the workers (machine/process) that ran its slices: instances are their distinct machines.</summary>
    public RunEnvironment ToRun(IReadOnlyCollection<string> workers, string host, EnvironmentInfo? end) =>
        ToRun(Math.Max(1, workers.Select(WorkerFigures.MachineOf).Distinct(StringComparer.Ordinal).Count()), host, end) with { Workers = Math.Max(1, workers.Count) };

    /// <summary>The run's environment: these (the start's) figures, and the load and other processes' CPU share from start to <paramref name="end"/>.</summary>
    public RunEnvironment ToRun(int instances, string host, EnvironmentInfo? end) => new(TargetKind, instances, host, Machine, Runtime, ProcessorCount, TargetAccounts)
    {
        Workers = instances,
        LoadAverageStart = MachineState?.LoadAverage1m,
        LoadAverageEnd = end?.MachineState?.LoadAverage1m,
        OtherProcessesCpuShare = MachineState is { } a && end?.MachineState is { } b ? MachineSnapshot.OtherProcessesShare(a, b) : null,
        ToolVersion = ToolVersion,
        ToolCommit = ToolCommit,
        EmulatorVersion = EmulatorVersion,
        AzureSdk = AzureSdk,
        GarbageCollector = GarbageCollector,
    };
}

/// <summary>A step sub-orchestration's input: the spec with the step's value applied, and the run it belongs to.</summary>
/// <param name="Environment">The machine at the run's start; null for the run's first step, which describes it in its own first hop.</param>
/// <param name="JudgeStoredShare">Fail the step when it stored less of its planned work than spec.maxUnstoredShare allows (not for a saturation search's steps).</param>
public sealed record StepInput(string RunId, int Index, DateTime RunStartedUtc, RunSpec Spec, string? Parameter, double? Value, EnvironmentInfo? Environment, string Host,
    bool JudgeStoredShare = true)
{
    /// <summary>The run's <see cref="RunRequest.Telemetry"/>.</summary>
    public bool Telemetry { get; init; } = true;
}

/// <summary>
/// A step's outcome: its workloads (merged figures; per-slice rows stay in the results table) and why it
/// is not Completed: the sub-orchestration's output, bounded by its shape and its figures (the payload budget's figures tier).
/// </summary>
/// <param name="Hosts">The workers (machine/process id) its slices ran on: one per Function App instance or local worker process.</param>
[CarriesFigures(WorkloadSummary.HistogramCount, 1, PerWorkload = true)]
public sealed record StepResult(string StepId, int Index, string? Parameter, double? Value, string Status, IReadOnlyList<string> Errors,
    IReadOnlyList<WorkloadSummary> Workloads, IReadOnlyList<string> Hosts)
{
    /// <summary>The target's Server header when the step made its table or container (Azurite's version); null when not seen.</summary>
    public string? Server { get; init; }

    /// <summary>What the step sent to the targets outside its measured window (prepare, priming, verify, cleanup).</summary>
    public TargetSideRequests? SideRequests { get; init; }

    /// <summary>What went differently without costing a figure (<see cref="RunSummary.Notes"/>); not errors, so the status stands.</summary>
    public IReadOnlyList<string> Notes { get; init; } = [];

    /// <summary>The step's workloads that have no figures, and why.</summary>
    public IReadOnlyList<UnmeasuredWorkload> Unmeasured { get; init; } = [];

    /// <summary>The machine at the run's start, as the step had it (given, or described by the run's first step).</summary>
    public EnvironmentInfo? StartEnvironment { get; init; }

    /// <summary>The machine as the step stored its row: the run's end, when it is the last step; null when it could not be described.</summary>
    public EnvironmentInfo? EndEnvironment { get; init; }
}

/// <summary>
/// A workload's verification; <paramref name="ThenDelete"/>: the step's tables and containers, deleted in the same activity
/// once it has counted (the step's last workload: a hop of the orchestration fewer than a deletion of its own).
/// </summary>
public sealed record VerifyInput(VerifyOrder Order, StepTargets? ThenDelete = null);

/// <summary>What storage held; <paramref name="Deleted"/>: the deletion's requests, null when none was asked or it failed (the step then deletes them itself).</summary>
public sealed record VerifyOutcome(VerificationResult Verified, Engine.Cost.TargetRequests? Deleted);

/// <summary>A step's own tables and containers, one per workload (named from the step's id, its creation time and the workload).</summary>
public sealed record StepTargets(string StepId, string[] Tables, string[] Containers)
{
    public static StepTargets For(string stepId, DateTime createdUtc, IEnumerable<Workload> rooms)
    {
        var names = rooms.Select(r => (r.Service, Name: Planner.TargetName(r, stepId, createdUtc))).ToList();
        return new(stepId, [.. names.Where(n => n.Service == TargetService.Table).Select(n => n.Name)], [.. names.Where(n => n.Service == TargetService.Blob).Select(n => n.Name)]);
    }
}

/// <summary>The slice executions a workload of a step accepted: the other executions' slice rows are deleted.</summary>
public sealed record AcceptedSlices(string Workload, string[] Attempts);

[CarriesFigures(WorkloadSummary.HistogramCount, 0, PerWorkload = true)]
public sealed record StoreStepInput(StepRecord Step, AcceptedSlices[] Accepted);

/// <param name="Run">Names the run (scenario, id, environment) and carries the step's status and spec.</param>
[CarriesFigures(WorkloadSummary.HistogramCount, 0, PerWorkload = true)]
public sealed record StepTelemetryInput(RunSummary Run, WorkloadSummary[] Workloads);

/// <summary>Headline form of a workload for activity payloads: no timeline, distribution or attempt list (they stay in the step's result).</summary>
public static class WorkloadPayloads
{
    public static WorkloadSummary Headline(WorkloadSummary w) => w with { Timeline = Timeline.Empty, LatencyDistribution = [], SliceAttempts = [], PerSlice = [] };
}

/// <summary>What a RunSlice call hands back: the slice's figures, or (placement) that this worker had no seat for it.</summary>
[CarriesFigures(SliceResult.HistogramCount, 1)]
public sealed record SliceOutcome(SliceResult? Result, SeatRefusal? Refused = null);

/// <summary>
/// A slice that would have broken its cap on <paramref name="Worker"/> (<paramref name="Running"/> slices of its step ran
/// there): it did not run, and the step calls it again for another worker. <paramref name="Rerun"/>: an earlier execution
/// of it reported progress (its worker died or stopped), so it is past its first placement.
/// </summary>
public sealed record SeatRefusal(string Worker, int Running, bool Rerun);

/// <summary>
/// A worker process up on the task hub (its last heartbeat within <see cref="WorkerRoster.Fresh"/>), its activity limit, and the
/// hub's control-queue partitions as it runs them (a worker beyond that many owns none, so no handed-back slice reaches it).
/// </summary>
public sealed record WorkerSeen(string Worker, int? ActivityLimit, int? HubPartitions = null);
