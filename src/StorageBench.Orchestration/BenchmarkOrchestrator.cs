using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;

namespace StorageBench.Orchestration;

/// <summary>
/// One benchmark run: for each step (one, or one per sweep/saturation value) plan → prepare → fan out
/// one activity per slice (synchronized start) → fan in (merge histograms and timelines) → verify
/// against storage → delete the step's table/container (also after a failure); then store the result.
/// Deterministic: only the context's clock and activities.
/// </summary>
public static class BenchmarkOrchestrator
{
    public const string Name = "BenchmarkRun";

    public static async Task<RunSummary> RunAsync(IRunOrchestrationContext context, RunRequest request)
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

        var env = await context.CallActivityAsync<EnvironmentInfo>(ActivityNames.DescribeEnvironment, null);
        var workloads = new List<WorkloadSummary>();
        var allSlices = new List<SliceResult>();
        var failures = new List<string>();
        bool canceled = false;
        var search = spec.Saturation is { } sat ? new SaturationSearch(sat) : null;
        var (parameter, values) = spec.Sweep is { } sweep ? (sweep.Parameter, sweep.Values)
            : search is not null ? (search.Parameter, search.Values)
            : ((string?)null, new[] { 0.0 });

        int index = 0;
        foreach (double value in values)
        {
            var stepSpec = parameter is null ? spec : SpecVariants.Apply(spec, parameter, value);
            string stepId = parameter is null ? runId : $"{runId}-{index++}";
            var (step, stepCanceled) = await RunStepAsync(context, stepId, stepSpec, env.TargetAccounts, allSlices, failures);
            canceled |= stepCanceled;
            workloads.AddRange(step.Select(w => parameter is null ? w : w with { StepParameter = parameter, StepValue = value }));
            if (failures.Count > 0)
            {
                search?.Stop(value, "the step failed");
                break;
            }
            if (search is not null && !search.Continue(value, step))
            {
                break;
            }
        }

        var summary = new RunSummary
        {
            RunId = runId,
            Status = failures.Count == 0 ? RunStatus.Completed : canceled ? RunStatus.Canceled : RunStatus.Failed,
            StartedUtc = startedUtc,
            EndedUtc = context.CurrentUtcDateTime,
            Spec = spec,
            Environment = new RunEnvironment(env.TargetKind, Math.Max(1, allSlices.Select(s => s.Host).Distinct().Count()), request.Host,
                env.Machine, env.Runtime, env.ProcessorCount, env.TargetAccounts),
            Workloads = workloads,
            Errors = failures,
            Saturation = search?.Result(),
        };
        if (request.CheckRegression && summary.Status == RunStatus.Completed)
        {
            context.SetCustomStatus(new RunProgress("checking regression", null, 0));
            try
            {
                summary = summary with { Regression = await context.CallActivityAsync<RegressionVerdict>(ActivityNames.CheckRegression, summary) };
            }
            catch (Exception ex)
            {
                // The measured result must still be stored and sent; only the verdict is missing.
                summary = summary with { Errors = [.. summary.Errors, "regression check: " + ex.Message] };
            }
        }
        context.SetCustomStatus(new RunProgress("storing result", null, 0));
        try
        {
            await context.CallActivityAsync<bool>(ActivityNames.StoreResult, new StoreResultInput(summary, [.. allSlices]));
        }
        catch (Exception ex)
        {
            summary = summary with { Status = RunStatus.Failed, Errors = [.. summary.Errors, "storing result: " + ex.Message] };
        }
        try
        {
            await context.CallActivityAsync<bool>(ActivityNames.EmitTelemetry, summary);
        }
        catch (Exception ex)
        {
            // The benchmark itself stands; the missing telemetry is reported, not hidden.
            summary = summary with { Errors = [.. summary.Errors, "telemetry: " + ex.Message] };
        }
        return summary;
    }

    private static List<string> Invalid(string runId, RunSpec spec)
    {
        var why = RunSpecValidator.Validate(spec).Select(e => e.ToString()).ToList();
        if (!Planner.IsValidRunId(runId))
        {
            why.Add($"runId: \"{runId}\" must be 1-48 lowercase letters, digits or '-'");
        }
        return why;
    }

    /// <summary>Runs the workloads of one step into its own table/container, and always deletes them.</summary>
    private static async Task<(List<WorkloadSummary> Workloads, bool Canceled)> RunStepAsync(IRunOrchestrationContext context, string stepId, RunSpec spec, int targetAccounts,
        List<SliceResult> allSlices, List<string> failures)
    {
        var workloads = new List<WorkloadSummary>();
        bool canceled = false;
        var targets = new TargetsInput(stepId, spec.TableInsert is not null, spec.BlobUpload is not null);
        try
        {
            context.SetCustomStatus(new RunProgress("preparing " + stepId, null, 0));
            await context.CallActivityAsync<bool>(ActivityNames.PrepareTargets, targets);
            if (spec.TableInsert is { } table)
            {
                var plans = Planner.PlanTable(stepId, table, spec.Client, StartAt(context, spec), targetAccounts);
                var slices = await FanOutAsync(context, ActivityNames.RunTableSlice, plans, "tableInsert");
                var verified = await context.CallActivityAsync<VerificationResult>(ActivityNames.VerifyTable,
                    new VerifyTableInput(Planner.TableName(stepId), slices.Sum(s => s.Units + s.WarmupUnits)));
                workloads.Add(SummaryCalculator.SummarizeTable(table, slices, verified));
                allSlices.AddRange(slices);
            }
            if (spec.BlobUpload is { } blob)
            {
                var plans = Planner.PlanBlob(stepId, blob, spec.Client, StartAt(context, spec), targetAccounts);
                var slices = await FanOutAsync(context, ActivityNames.RunBlobSlice, plans, "blobUpload");
                var verified = await context.CallActivityAsync<VerificationResult>(ActivityNames.VerifyBlobs,
                    new VerifyBlobsInput(Planner.ContainerName(stepId), slices.Sum(s => s.Objects), blob.BlobSizeBytes,
                        blob.VerifyContent ? [.. slices.OrderBy(s => s.SliceIndex).Select(s => s.ContentMd5)] : null));
                workloads.Add(SummaryCalculator.SummarizeBlob(blob, slices, verified));
                allSlices.AddRange(slices);
            }
        }
        catch (Exception ex)
        {
            failures.Add(ex.Message);
            canceled = IsCancellation(ex);
        }
        finally
        {
            context.SetCustomStatus(new RunProgress("cleaning up " + stepId, null, 0));
            try
            {
                await context.CallActivityAsync<bool>(ActivityNames.DeleteTargets, targets);
            }
            catch (Exception ex)
            {
                failures.Add("cleanup: " + ex.Message);
            }
        }
        return (workloads, canceled);
    }

    /// <summary>A failure that is the run being stopped (Ctrl+C, host shutdown), not the benchmark failing.</summary>
    private static bool IsCancellation(Exception ex)
    {
        for (Exception? e = ex; e is not null; e = e.InnerException)
        {
            if (e is OperationCanceledException)
            {
                return true;
            }
        }
        return false;
    }

    /// <summary>All slices of a workload begin at one instant chosen here, so they really run together.</summary>
    private static DateTime StartAt(IRunOrchestrationContext context, RunSpec spec) =>
        context.CurrentUtcDateTime.AddSeconds(spec.StartDelaySeconds);

    private static async Task<SliceResult[]> FanOutAsync<TPlan>(IRunOrchestrationContext context, string activity, IReadOnlyList<TPlan> plans, string workload)
    {
        context.SetCustomStatus(new RunProgress("running", workload, plans.Count));
        return await Task.WhenAll(plans.Select(p => context.CallActivityAsync<SliceResult>(activity, p)));
    }
}
