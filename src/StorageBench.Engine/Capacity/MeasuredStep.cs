using System.Globalization;
using StorageBench.Engine.Comparison;

namespace StorageBench.Engine.Capacity;

/// <summary>
/// One workload of one measured step as the capacity planner sees it: the configuration it ran (the run's spec with
/// the step's value applied), against what, and what it sustained.
/// </summary>
/// <param name="Source">Where the figures were read (a summary.json path, or the results table).</param>
/// <param name="Rate">Entities/s, or for blobs MB/s of committed blobs, over the step.</param>
/// <param name="CpuMicrosecondsPerUnit">Driver CPU per entity, or per MB; null when not recorded.</param>
/// <param name="BeyondKnee">A saturation search's step at or past its knee: it broke the search's own bound.</param>
/// <param name="EntitiesPerQueryPage">tableRead queries: entities one query page returned, as measured; null when not recorded.</param>
public sealed record MeasuredStep(string RunId, string Source, string Workload, string? StepParameter, double? StepValue, RunSpec Spec,
    string TargetKind, int TargetAccounts, int DriverCores, double Rate, double LatencyP50Ms, double LatencyP99Ms,
    long Operations, long Failed, double? CpuMicrosecondsPerUnit, bool BeyondKnee, double? EntitiesPerQueryPage = null)
{
    public double FailedShare => Operations == 0 ? 1 : (double)Failed / Operations;

    /// <summary>Slices of the step's workload.</summary>
    public int Slices => WorkloadList.Find(Workload)?.Capacity?.Slices(Spec) ?? 1;

    /// <summary>"run 2026…-ab12cd34, tableInsert.concurrency = 8", what a plan cites as the measurement behind a figure.</summary>
    public string Label => StepParameter is null
        ? $"run {RunId}"
        : $"run {RunId}, {StepParameter} = {StepValue?.ToString("0.###", CultureInfo.InvariantCulture)}";

    /// <summary>Every workload of every step of a summary (a plain run, a sweep, a saturation search).</summary>
    public static IReadOnlyList<MeasuredStep> From(RunSummary summary, string source)
    {
        if (summary.Spec is not { } spec)
        {
            return [];
        }
        double? knee = summary.Saturation?.KneeValue;
        return [.. summary.Workloads.Select(w => new MeasuredStep(summary.RunId, source, w.Workload, w.StepParameter, w.StepValue,
            Effective(spec, w.StepParameter, w.StepValue), summary.Environment.TargetKind, summary.Environment.TargetAccounts, summary.Environment.ProcessorCount,
            WorkloadKind.Of(w.Workload).RateOf(w.Throughput) ?? 0,
            w.LatencyMs.P50 ?? 0, w.LatencyMs.P99 ?? 0, w.Operations, w.Failed, w.ClientCpuMicrosecondsPerEntity ?? w.ClientCpuMicrosecondsPerMegabyte,
            knee is { } k && w.StepValue >= k && w.StepParameter is not null, w.EntitiesPerQueryPage))];
    }

    /// <summary>A run read from the results table: its steps' figures, and the spec and environment its run row holds.</summary>
    public static IReadOnlyList<MeasuredStep> From(RunFigures run, StoredRunSetup setup) =>
        [.. run.Workloads.Select(w => new MeasuredStep(run.RunId, run.Source, w.Workload, w.StepParameter, w.StepValue,
            Effective(setup.Spec, w.StepParameter, w.StepValue), setup.TargetKind, setup.TargetAccounts, setup.DriverCores,
            w.Rate, w.LatencyP50Ms, w.LatencyP99Ms, w.Operations, w.Failed, w.CpuMicrosecondsPerUnit,
            setup.SaturationKnee is { } k && w.StepValue >= k && w.StepParameter is not null))];

    /// <summary>The spec the step ran: the run's spec with the step's value set, without a sweep or search of its own.</summary>
    public static RunSpec Effective(RunSpec spec, string? parameter, double? value) =>
        parameter is not null && value is { } v ? SpecVariants.Apply(spec, parameter, v) : spec with { Sweep = null, Saturation = null };
}

/// <summary>What a run row of the results table says about how the run was set up (written since the plan command existed).</summary>
public sealed record StoredRunSetup(RunSpec Spec, string TargetKind, int TargetAccounts, int DriverCores, double? SaturationKnee);
