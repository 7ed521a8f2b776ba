using System.Globalization;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Measurement;

namespace StorageBench.Orchestration;

/// <summary>
/// One step of a run (a plain run has one; a sweep or search one per value), as its own
/// sub-orchestration so a run's history does not grow with its slices: create the step's tables and
/// containers (one per workload) → seed what a reading workload reads → fan out one activity per slice (synchronized start) → fan in (merge histograms and
/// timelines) → verify against storage, counting only the slice executions whose results arrived →
/// delete the table and container (also after a failure) → store the step's row and telemetry.
/// Deterministic: only the context's clock and activities.
/// </summary>
public static class StepOrchestrator
{
    public const string Name = "BenchmarkStep";

    /// <summary>The phases a step's status names while a workload's slices run, and while what they wrote is counted.</summary>
    public const string RunningPhase = "running", VerifyingPhase = "verifying", SeedingPhase = "seeding";

    public static async Task<StepResult> RunAsync(TaskOrchestrationContext context, StepInput input)
    {
        string stepId = context.InstanceId;
        var spec = input.Spec;
        var created = context.CurrentUtcDateTime;
        var rooms = WorkloadList.In(spec).Select(w => w.Room).ToList();
        var targets = StepTargets.For(stepId, created, rooms);
        var step = new StepSoFar();
        // Activities that need nothing of each other go in one hop of the orchestration rather than one each: the run's first
        // step describes the machine beside making its targets and reading the roster.
        var describing = input.Environment is { } given ? Task.FromResult(given) : ActivityList.DescribeEnvironment.CallAsync(context, null);
        try
        {
            context.SetCustomStatus(new RunProgress("preparing", null, 0, input.Index));
            var preparing = ActivityList.PrepareTargets.CallAsync(context, targets);
            var listing = SlicePlacement.WorkersAsync(context);
            step.Made = await preparing;
            var roster = await listing;
            var machine = await describing;
            // A later workload starts only when the ones before it ran whole.
            for (int i = 0; i < rooms.Count && !step.Canceled && step.Errors.Count == 0; i++)
            {
                // The last workload's verification deletes the step's targets once it has counted, in the same hop.
                await RunWorkloadAsync(context, input, machine, rooms[i], created, roster, step, i == rooms.Count - 1 ? targets : null);
            }
        }
        catch (Exception ex)
        {
            step.Canceled |= ex is TaskFailedException stoppedTask && stoppedTask.IsCancellation();
            step.CanceledAt ??= step.Canceled ? context.CurrentUtcDateTime : null;
            step.Errors.Add(TaskFailures.Report(ex));
        }
        finally
        {
            // Also after any failure: unless the last verification has deleted them already.
            if (step.Deleted is null)
            {
                context.SetCustomStatus(new RunProgress("cleaning up", null, 0, input.Index));
                try
                {
                    step.Deleted = await ActivityList.DeleteTargets.CallAsync(context, targets);
                }
                catch (Exception ex)
                {
                    step.Errors.Add("cleanup: " + TaskFailures.Describe(ex));
                }
            }
        }
        // Creating and deleting the table and container are requests too: the cost estimate counts them.
        var workloads = step.Workloads.Select(w => TransactionCounts.WithTargets(w, WorkloadList.Of(w.Workload).Service,
            Planner.TargetName(WorkloadList.Of(w.Workload), stepId, created), step.Made, step.Deleted)).ToList();
        var side = step.Made is null ? step.Side.Missing(TargetSideRequests.PreparePhase) : step.Side with { Prepare = step.Made.Tables + step.Made.Containers };
        side = step.Deleted is null ? side.Missing(TargetSideRequests.CleanupPhase) : side with { Cleanup = step.Deleted.Tables + step.Deleted.Containers };
        var (status, unmeasured) = Judge(input, rooms, workloads, step);
        // Not caught: a step that cannot say what machine it ran on has no row to store (it fails, as the run's own description did).
        var start = await describing;
        var env = (start with { EmulatorVersion = start.TargetKind == "Azurite" ? step.Made?.Server : null }).ToRun(step.Hosts, input.Host, null);
        // A step's workloads name their step in everything that leaves it (row, telemetry, result): sweep-curve.kql selects on it.
        var stepped = input.Parameter is null ? workloads : [.. workloads.Select(w => w with { StepParameter = input.Parameter, StepValue = input.Value })];
        (status, var end) = await StoreAsync(context, input, status, env, stepped, unmeasured, step);
        return new StepResult(stepId, input.Index, input.Parameter, input.Value, status, step.Errors, stepped, [.. step.Hosts])
        {
            Server = step.Made?.Server, SideRequests = side, Notes = step.Notes, Unmeasured = unmeasured, StartEnvironment = start, EndEnvironment = end,
        };
    }

    /// <summary>What the step has gathered so far, workload by workload.</summary>
    private sealed class StepSoFar
    {
        public List<WorkloadSummary> Workloads { get; } = [];
        public List<AcceptedSlices> Accepted { get; } = [];
        public List<string> Errors { get; } = [];
        // What lost nothing measured (a slice that ran again; progress, cancel polls or slice rows that missed; verification that
        // could not read storage): reported as notes, not errors, and the status stands.
        public List<string> Notes { get; } = [];
        public SortedSet<string> Hosts { get; } = new(StringComparer.Ordinal);
        public bool Canceled { get; set; }
        // When the step saw the cancel (its slices poll for it about once a second), and the workloads it sent slices for.
        public DateTime? CanceledAt { get; set; }
        public List<string> FannedOut { get; } = [];
        public TargetRequests? Made { get; set; }
        public TargetRequests? Deleted { get; set; }
        // What the step sends the targets outside its measured window; a phase that could not report its count is named.
        public TargetSideRequests Side { get; set; } = TargetSideRequests.None;
    }

    /// <summary>One workload of the step: seed what it reads, place and run its slices, verify and summarize what they handed back.</summary>
    /// <param name="thenDelete">The step's targets, for its last workload: its verification deletes them once it has counted.</param>
    private static async Task RunWorkloadAsync(TaskOrchestrationContext context, StepInput input, EnvironmentInfo machine, Workload room, DateTime created, WorkerSeen[] roster,
        StepSoFar step, StepTargets? thenDelete)
    {
        var spec = input.Spec;
        string target = Planner.TargetName(room, context.InstanceId, created);
        SeedResult[] seeds = [];
        if (room.Seeds)
        {
            (step.Side, seeds) = await SeedAsync(context, room, spec, new StepPlan(input.RunId, context.InstanceId, target, context.CurrentUtcDateTime, machine.TargetAccounts),
                input.Index, step.Side, step.Errors);
            if (step.Errors.Count > 0)
            {
                return;
            }
        }
        var stepPlan = new StepPlan(input.RunId, context.InstanceId, target, StartAt(context, spec), machine.TargetAccounts);
        var segments = SegmentPlan.For(room.SectionOf(spec)!, spec);
        IReadOnlyList<SliceOrder> orders = [.. room.Plan(stepPlan, spec).Select(o => o with { Segments = segments })];
        var (slices, stopped, unplaced) = await StepFanOut.RunAsync(context, orders, room.Name, input.Index, spec, roster, step.Errors, step.Notes);
        step.FannedOut.Add(room.Name);
        if (unplaced is not null)
        {
            // Its slices were stopped before they measured together: no figures, and no later workload.
            step.Errors.Add(unplaced);
            return;
        }
        step.Canceled |= stopped;
        step.CanceledAt ??= step.Canceled ? context.CurrentUtcDateTime : null;
        step.Side = Primed(step.Side, slices, orders.Count);
        if (slices.Count > 0)
        {
            var verified = await VerifyAsync(context, new VerifyInput(room.VerifyOrderOf(spec, stepPlan, slices), thenDelete), room.Name, orders.Count, input.Index, step);
            step.Side = Verified(step.Side, verified);
            step.Workloads.Add(TransactionCounts.WithSeeding(room.Summarize(spec, slices, verified), room.SeedingLine(seeds)) with
            {
                PerWorker = WorkerFigures.Of(slices, room.Kind),
            });
            step.Accepted.Add(new AcceptedSlices(room.Name, Attempts(slices)));
            step.Hosts.UnionWith(slices.Select(s => s.Worker));
        }
    }

    /// <summary>The step's status from its errors and cancel, and every workload of the spec that has no figures, with why.</summary>
    private static (string Status, UnmeasuredWorkload[] Unmeasured) Judge(StepInput input, List<Workload> rooms, List<WorkloadSummary> workloads, StepSoFar step)
    {
        var spec = input.Spec;
        if (input.JudgeStoredShare && !step.Canceled)
        {
            // A run that lost a significant share of its work must not look like a success.
            step.Errors.AddRange(workloads.Where(w => w.UnstoredShare > spec.MaxUnstoredShare).Select(w =>
                $"{w.Workload}: {w.Planned - w.Stored:N0} of {w.Planned:N0} planned {WorkloadKind.Of(w.Workload).PlannedUnit} " +
                $"({w.UnstoredShare * 100:0.0}%) were not stored, over maxUnstoredShare {spec.MaxUnstoredShare * 100:0.###}%"));
        }
        // A workload that measured nothing (all warm-up, nothing sent) is not a result: the step fails, naming it.
        step.Errors.AddRange(SummaryCalculator.NothingMeasured(workloads, step.Canceled));
        string status = step.Canceled ? RunStatus.Canceled : step.Errors.Count > 0 ? RunStatus.Failed : RunStatus.Completed;
        UnmeasuredWorkload[] unmeasured = [.. rooms.Select(r => r.Name).Where(name => !workloads.Any(w => w.Workload == name)).Select(name => new UnmeasuredWorkload(name, input.Parameter, input.Value,
            !step.FannedOut.Contains(name) ? NotStarted(step.CanceledAt, "an earlier part of the step failed (see the errors)")
            : step.CanceledAt is { } at ? $"canceled at {Utc(at)} before any slice handed back figures"
            : "no slice handed back figures (see the errors)"))];
        return (status, unmeasured);
    }

    /// <summary>
    /// Stores the step's row and sends its telemetry; a row that could not be stored makes the step Failed (its figures stay in the result).
    /// The machine is described again beside the row, in the same hop: the last step's description is the run's end.
    /// </summary>
    private static async Task<(string Status, EnvironmentInfo? End)> StoreAsync(TaskOrchestrationContext context, StepInput input, string status, RunEnvironment env,
        List<WorkloadSummary> workloads, UnmeasuredWorkload[] unmeasured, StepSoFar step)
    {
        var ended = context.CurrentUtcDateTime;
        WorkloadSummary[] headlines = [.. workloads.Select(WorkloadPayloads.Headline)];
        var describing = ActivityList.DescribeEnvironment.CallAsync(context, null);
        try
        {
            await ActivityList.StoreStep.CallAsync(context, new StoreStepInput(
                new StepRecord(input.RunId, input.Spec.Scenario, input.RunStartedUtc, ended, env, input.Index, input.Parameter, input.Value, status, step.Errors, headlines)
                {
                    Notes = step.Notes, Unmeasured = unmeasured,
                },
                [.. step.Accepted]));
        }
        catch (Exception ex)
        {
            // One rule for steps and runs: a result that could not be stored is Failed (its figures are in the local summary only).
            status = step.Canceled ? RunStatus.Canceled : RunStatus.Failed;
            step.Errors.Add("storing the step's result: " + TaskFailures.Describe(ex));
        }
        EnvironmentInfo? end = null;
        try
        {
            end = await describing;
        }
        catch (TaskFailedException)
        {
            // The run describes the machine at its end itself.
        }
        if (!input.Telemetry)
        {
            return (status, end);
        }
        try
        {
            var run = new RunSummary
            {
                RunId = input.RunId, Status = status, StartedUtc = input.RunStartedUtc, EndedUtc = ended, Spec = input.Spec, Environment = env,
            };
            await ActivityList.EmitStepTelemetry.CallAsync(context, new StepTelemetryInput(run, headlines));
        }
        catch (Exception ex)
        {
            // The benchmark itself stands; the missing telemetry is reported, not hidden.
            step.Errors.Add("telemetry: " + TaskFailures.Describe(ex));
        }
        return (status, end);
    }

    /// <summary>
    /// A reading workload's seeding: every slice writes what it will read (its own activity, in parallel), before the
    /// measured slices are planned, so their synchronized start comes after it. A seed that could not write all it should
    /// fails the step, naming how much: what would be read is not there.
    /// </summary>
    private static async Task<(TargetSideRequests, SeedResult[])> SeedAsync(TaskOrchestrationContext context, Workload room, RunSpec spec, StepPlan stepPlan, int step,
        TargetSideRequests side, List<string> errors)
    {
        var orders = room.Plan(stepPlan, spec);
        context.SetCustomStatus(new RunProgress(SeedingPhase, room.Name, orders.Count, step));
        var seeded = await Task.WhenAll(orders.Select(o => ActivityList.SeedSlice.CallAsync(context, o)));
        long failed = seeded.Sum(s => s.Failed);
        if (failed > 0)
        {
            errors.Add($"{room.Name}: seeding failed: {failed:N0} of its writes did not land (after {seeded.Sum(s => s.Requests):N0} requests), so what the slices would read is not all there");
        }
        return (side with { Seed = side.Seed + seeded.Sum(s => s.Requests) }, seeded);
    }

    /// <summary>Why a workload was never started: the run's cancel (and when it was seen), or <paramref name="otherwise"/>.</summary>
    private static string NotStarted(DateTime? canceledAt, string otherwise) =>
        "not started: " + (canceledAt is { } at ? $"the run was canceled at {Utc(at)}" : otherwise);

    /// <summary>"11:28:40Z", whatever the culture's time separator.</summary>
    private static string Utc(DateTime at) => at.ToString("HH:mm:ss'Z'", CultureInfo.InvariantCulture);

    /// <summary>The slices' priming requests (their own counts); a slice whose result never came reported none.</summary>
    private static TargetSideRequests Primed(TargetSideRequests side, List<SliceResult> done, int planned)
    {
        var primed = side with { Priming = side.Priming + done.Sum(s => s.Requests.PrimingRequests) };
        return done.Count < planned ? primed.Missing(TargetSideRequests.PrimingPhase) : primed;
    }

    /// <summary>Verification's requests, counted on the wire; none reported when it could not read storage.</summary>
    private static TargetSideRequests Verified(TargetSideRequests side, VerificationResult verified) => verified.Requests is { } r
        ? side with { Verify = side.Verify + r.Queries + r.Reads + r.Deletes }
        : side.Missing(TargetSideRequests.VerifyPhase);

    /// <summary>
    /// Counts what is really in storage. When storage cannot be read (dead, slow past the verification
    /// deadline, refusing), the figures the slices measured are still kept, marked unverified with the
    /// reason (in errors too); the status is unchanged, and the CLI exits 1 for an unverified run.
    /// </summary>
    private static async Task<VerificationResult> VerifyAsync(TaskOrchestrationContext context, VerifyInput input, string workload, int slices, int index, StepSoFar step)
    {
        // Its own phase: the slices are done, and their progress rows no longer say what the step does (a large table takes minutes).
        context.SetCustomStatus(new RunProgress(VerifyingPhase, workload, slices, index));
        try
        {
            var (verified, deleted) = await ActivityList.Verify.CallAsync(context, input);
            step.Deleted = deleted;
            if (verified.NotVerifiedReason is not null)
            {
                // The activity met storage it could not read (the storage-call policy): the figures stand, unverified.
                step.Notes.Add($"{workload}: {verified.Detail}");
            }
            return verified;
        }
        catch (TaskFailedException ex) when (!ex.IsCancellation())
        {
            // Not a storage failure: the verification itself broke.
            step.Errors.Add(ex.Report());
            return VerificationResult.StorageUnreadable(ex.FailureDetails.ErrorMessage);
        }
    }

    private static string[] Attempts(IEnumerable<SliceResult> slices) => SliceExecutions.Attempts(slices);

    /// <summary>All slices of a workload begin at one instant chosen here, so they really run together.</summary>
    private static DateTime StartAt(TaskOrchestrationContext context, RunSpec spec) =>
        context.CurrentUtcDateTime.AddSeconds(spec.StartDelaySeconds);
}
