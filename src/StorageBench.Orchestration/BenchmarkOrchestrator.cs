using System.Globalization;

namespace StorageBench.Orchestration;

/// <summary>
/// One benchmark run: validate, then run each step (one, or one per sweep or saturation value) as a
/// <see cref="StepOrchestrator"/> sub-orchestration, decide from each step's figures whether to go on,
/// judge the run against its baseline if asked, and store the run's own record. Its history holds
/// two small events per step, never a step's slices. Deterministic: only the context's clock,
/// activities and sub-orchestrations.
/// </summary>
/// <remarks>
/// Its output is the run's own summary: status, errors, environment, saturation and regression
/// results, and the ids of its steps. The workloads' figures are each step's output;
/// <see cref="RunResults"/> puts the whole summary together.
/// </remarks>
public static class BenchmarkOrchestrator
{
    public const string Name = "BenchmarkRun";

    public static async Task<RunSummary> RunAsync(TaskOrchestrationContext context, RunRequest request)
    {
        string runId = context.InstanceId;
        var spec = request.Spec;
        var startedUtc = context.CurrentUtcDateTime;
        var invalid = Invalid(runId, spec);
        if (invalid.Count > 0)
        {
            // A rejected spec starts nothing and writes nothing, not even a result row.
            return new RunSummary
            {
                RunId = runId, Status = RunStatus.Invalid, StartedUtc = startedUtc, EndedUtc = startedUtc, Spec = spec,
                Environment = new RunEnvironment("", 0, request.Host, "", "", 0), Errors = invalid,
            };
        }
        // Everything sent to the targets outside the measured windows: the preflight before the start, then each step's.
        var run = new RunSoFar { Side = TargetSideRequests.None with { Preflight = request.PreflightRequests } };
        await CleanupAsync(context, request, run);
        var search = spec.Saturation is { } sat ? new SaturationSearch(sat) : null;
        var (parameter, values) = spec.Sweep is { } sweep ? (sweep.Parameter, sweep.Values)
            : search is not null ? (search.Parameter, search.Values)
            : ((string?)null, new[] { 0.0 });
        await RunStepsAsync(context, request, startedUtc, search, parameter, [.. values], run);

        // The first step describes the machine, and each step again as it stores its row (the load at the end and the CPU other
        // processes used meanwhile): a run whose steps could not is described here, one hop each.
        var env = run.Start ?? await ActivityList.DescribeEnvironment.CallAsync(context, null);
        EnvironmentInfo? endEnv = run.End;
        try
        {
            endEnv ??= await ActivityList.DescribeEnvironment.CallAsync(context, null);
        }
        catch (Exception ex)
        {
            run.Errors.Add("describing the machine at the end: " + TaskFailures.Describe(ex));
        }
        var summary = new RunSummary
        {
            RunId = runId,
            Status = run.Status,
            StartedUtc = startedUtc,
            EndedUtc = context.CurrentUtcDateTime,
            Spec = spec,
            Environment = (env with { EmulatorVersion = env.TargetKind == "Azurite" ? run.Server : null }).ToRun(run.Hosts, request.Host, endEnv),
            Errors = run.Errors,
            Notes = run.Notes,
            Unmeasured = run.Unmeasured,
            Saturation = search?.Result(),
            Steps = run.Steps,
            TargetSideRequests = run.Side,
        };
        return await FinishAsync(context, request, summary, parameter is null ? run.Last : null);
    }

    /// <summary>What the run has gathered so far, step by step: its errors, notes, workers and the requests outside its measured windows.</summary>
    private sealed class RunSoFar
    {
        public List<string> Errors { get; } = [];
        public List<string> Notes { get; } = [];
        public List<UnmeasuredWorkload> Unmeasured { get; } = [];
        public List<string> Steps { get; } = [];
        public SortedSet<string> Hosts { get; } = new(StringComparer.Ordinal);
        public TargetSideRequests Side { get; set; } = TargetSideRequests.None;
        public StepResult? Last { get; set; }
        public string? Server { get; set; }
        public string Status { get; set; } = RunStatus.Completed;
        // The machine as the first step described it, and as the last step that ended stored its row.
        public EnvironmentInfo? Start { get; set; }
        public EnvironmentInfo? End { get; set; }
    }

    /// <summary>A driver killed mid-run leaves its step's table and container behind; the nightly run clears them first.</summary>
    private static async Task CleanupAsync(TaskOrchestrationContext context, RunRequest request, RunSoFar run)
    {
        if (request.CleanupOlderThanHours is not { } hours)
        {
            return;
        }
        context.SetCustomStatus(new RunProgress("cleaning up leftovers", null, 0));
        try
        {
            var cleaned = await ActivityList.CleanupLeftovers.CallAsync(context, hours);
            run.Side = run.Side with { Cleanup = cleaned.Requests };
        }
        catch (Exception ex)
        {
            run.Errors.Add("cleaning up leftovers: " + TaskFailures.Describe(ex));
            run.Side = run.Side.Missing(TargetSideRequests.CleanupPhase);
        }
    }

    /// <summary>Each step as a sub-orchestration, in order, until one does not complete or the search stops.</summary>
    private static async Task RunStepsAsync(TaskOrchestrationContext context, RunRequest request, DateTime startedUtc, SaturationSearch? search,
        string? parameter, List<double> values, RunSoFar run)
    {
        var spec = request.Spec;
        for (int index = 0; index < values.Count; index++)
        {
            double value = values[index];
            var stepSpec = parameter is null ? spec : SpecVariants.Apply(spec, parameter, value);
            string stepId = Planner.StepId(context.InstanceId, index);
            run.Steps.Add(stepId);
            context.SetCustomStatus(new RunProgress("step", null, 0, index, values.Count));
            string label = parameter is null ? "" : $"step {parameter}={value:0.###}: ";
            StepResult last;
            try
            {
                last = await context.CallSubOrchestratorAsync<StepResult>(StepOrchestrator.Name,
                    new StepInput(context.InstanceId, index, startedUtc, stepSpec, parameter, parameter is null ? null : value, run.Start, request.Host, JudgeStoredShare: search is null)
                    {
                        Telemetry = request.Telemetry,
                    },
                    new SubOrchestrationOptions { InstanceId = stepId });
            }
            catch (Exception ex)
            {
                run.End = null;
                run.Errors.Add(label + TaskFailures.Report(ex));
                run.Side = run.Side.Missing(TargetSideRequests.PreparePhase, TargetSideRequests.PrimingPhase, TargetSideRequests.VerifyPhase, TargetSideRequests.CleanupPhase);
                run.Status = ex is TaskFailedException stopped && stopped.IsCancellation() ? RunStatus.Canceled : RunStatus.Failed;
                search?.Stop(value, "the step failed");
                run.Unmeasured.AddRange(WorkloadList.In(stepSpec).Select(w => w.Room.Name).Select(w => new UnmeasuredWorkload(w, parameter, parameter is null ? null : value,
                    run.Status == RunStatus.Canceled ? "canceled: the step ended without a result" : "the step ended without a result (see the errors)")));
                NotStartedSteps(spec, parameter, values, index, run.Status, run.Unmeasured);
                return;
            }
            run.Last = last;
            run.Start ??= last.StartEnvironment;
            run.End = last.EndEnvironment;
            run.Hosts.UnionWith(last.Hosts);
            run.Server ??= last.Server;
            run.Side = last.SideRequests is { } stepSide ? run.Side.Add(stepSide) : run.Side;
            run.Errors.AddRange(last.Errors.Select(e => label + e));
            run.Notes.AddRange(last.Notes.Select(n => label + n));
            run.Unmeasured.AddRange(last.Unmeasured);
            if (last.Status != RunStatus.Completed)
            {
                run.Status = last.Status;
                search?.Stop(value, last.Status == RunStatus.Canceled ? "the run was canceled" : "the step failed");
                NotStartedSteps(spec, parameter, values, index, run.Status, run.Unmeasured);
                return;
            }
            if (search is not null && !search.Continue(value, last.Workloads))
            {
                return;
            }
        }
    }

    /// <summary>
    /// Judges a plain run against its baseline if asked (only verified figures are judged), then stores the run's row and sends its
    /// telemetry. <paramref name="plain"/> is the only step of a run without a sweep or search (null otherwise).
    /// </summary>
    private static async Task<RunSummary> FinishAsync(TaskOrchestrationContext context, RunRequest request, RunSummary summary, StepResult? plain)
    {
        // A run whose storage could not be counted (it stays Completed) gets no verdict.
        if (request.CheckRegression && summary.Status == RunStatus.Completed && plain is not null && plain.Workloads.All(w => w.Verified.Matched))
        {
            context.SetCustomStatus(new RunProgress("checking regression", null, 0));
            try
            {
                summary = summary with
                {
                    Regression = await ActivityList.CheckRegression.CallAsync(context, RegressionInput.From(request.Spec.Scenario, summary.RunId, summary.StartedUtc, plain.Workloads)),
                };
            }
            catch (Exception ex)
            {
                // The measured result must still be stored and sent; only the verdict is missing.
                summary = summary with { Errors = [.. summary.Errors, "regression check: " + TaskFailures.Describe(ex)] };
            }
        }
        context.SetCustomStatus(new RunProgress("storing result", null, 0));
        try
        {
            await ActivityList.StoreRun.CallAsync(context, summary);
        }
        catch (Exception ex)
        {
            // One rule for steps and runs: a result that could not be stored is Failed (its figures are in the local summary only).
            summary = summary with { Status = summary.Status == RunStatus.Canceled ? RunStatus.Canceled : RunStatus.Failed, Errors = [.. summary.Errors, "storing result: " + TaskFailures.Describe(ex)] };
        }
        try
        {
            if (request.Telemetry)
            {
                await ActivityList.EmitRunTelemetry.CallAsync(context, summary);
            }
        }
        catch (Exception ex)
        {
            summary = summary with { Errors = [.. summary.Errors, "telemetry: " + TaskFailures.Describe(ex)] };
        }
        return summary;
    }

    /// <summary>
    /// A sweep stopped by a canceled or failed step: the workloads of each value after it, with why they have no figures. (A
    /// saturation search's values past where it stopped are not work the spec asked for: the search chooses how far it goes.)
    /// </summary>
    private static void NotStartedSteps(RunSpec spec, string? parameter, List<double> values, int stopped, string status, List<UnmeasuredWorkload> unmeasured)
    {
        if (spec.Sweep is null || parameter is null)
        {
            return;
        }
        string step = string.Create(CultureInfo.InvariantCulture, $"{parameter}={values[stopped]:0.###}");
        string why = status == RunStatus.Canceled ? $"not started: the run was canceled during the step {step}" : $"not started: the step {step} failed";
        unmeasured.AddRange(values.Skip(stopped + 1).SelectMany(v => WorkloadList.In(SpecVariants.Apply(spec, parameter, v)).Select(w => w.Room.Name)
            .Select(w => new UnmeasuredWorkload(w, parameter, v, why))));
    }

    private static List<string> Invalid(string runId, RunSpec spec)
    {
        var why = RunSpecValidator.Validate(spec).Select(e => e.ToString()).ToList();
        if (!Planner.IsValidRunId(runId))
        {
            why.Add($"runId: \"{runId}\" {Planner.RunIdRule}");
        }
        return why;
    }
}
