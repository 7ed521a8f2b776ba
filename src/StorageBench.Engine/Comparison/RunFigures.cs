using System.Text.Json;

namespace StorageBench.Engine.Comparison;

/// <summary>
/// A run as a comparison sees it: where it was read from and the headline figures of each of its
/// workloads, one entry per workload and step. Read from a summary.json or from the run's rows in the
/// results table, which give the same figures for the same run.
/// </summary>
/// <param name="Source">Where the figures were read: a file's path, or the results table.</param>
public sealed record RunFigures(string RunId, string Source, string? Scenario, string Status, DateTime StartedUtc, IReadOnlyList<WorkloadFigures> Workloads)
{
    /// <summary>The spec the run ran; null when read from the results table, which does not store it.</summary>
    public RunSpec? Spec { get; init; }

    /// <summary>The machine's state and the tool's build; null when not recorded.</summary>
    public RunEnvironment? Environment { get; init; }

    public static RunFigures FromSummary(RunSummary summary, string source) =>
        new(summary.RunId, source, summary.Spec?.Scenario, summary.Status, summary.StartedUtc, [.. summary.Workloads.Select(WorkloadFigures.From)])
        {
            Spec = summary.Spec, Environment = summary.Environment,
        };

    /// <summary>
    /// A summary.json, or the summary.json inside a directory (out/&lt;runId&gt;). Throws IOException,
    /// UnauthorizedAccessException or JsonException with the reason when it cannot be read as one.
    /// </summary>
    public static RunFigures ReadSummaryFile(string path)
    {
        string file = Directory.Exists(path) ? Path.Combine(path, "summary.json") : path;
        var summary = JsonSerializer.Deserialize<RunSummary>(File.ReadAllText(file), JsonDefaults.Options)
            ?? throw new JsonException("the file holds null, not a run summary");
        return FromSummary(summary, file);
    }
}

/// <summary>One workload of one step: what is compared, in the units the summary reports.</summary>
/// <param name="Rate">The headline throughput over the run: entities/s, or for blobs MB/s of committed blobs (goodput).</param>
/// <param name="PeakPerSecond">Best whole second, in the same unit (blobs: MB staged); null when the run covered none.</param>
/// <param name="LatencyP95Ms">Null only for a results row whose histogram is empty (then p95 cannot be read back).</param>
/// <param name="CpuMicrosecondsPerUnit">Driver CPU per entity, or per MB; null when not recorded.</param>
/// <param name="Spread">The per-second rates' spread, the run's own noise; null in summaries and rows written before it was recorded, or for a run shorter than two whole seconds.</param>
public sealed record WorkloadFigures(string Workload, string? StepParameter, double? StepValue, double Rate, double? PeakPerSecond,
    double LatencyP50Ms, double? LatencyP95Ms, double LatencyP99Ms, double LatencyMaxMs, long Operations, long Throttled, long Failed,
    double? CpuMicrosecondsPerUnit, RateSpread? Spread)
{
    public WorkloadKind Kind => WorkloadKind.Of(Workload);

    /// <summary>Successful requests behind the latency percentiles; null when not recorded.</summary>
    public long? LatencySamples { get; init; }

    /// <summary>The measured window: first slice start to last slice end, warm-up excluded; null when not recorded.</summary>
    public double? DurationSeconds { get; init; }

    /// <summary>entities/s or MB/s.</summary>
    public string Unit => Kind.RateUnit;

    public static WorkloadFigures From(WorkloadSummary w) => new(w.Workload, w.StepParameter, w.StepValue,
        WorkloadKind.Of(w.Workload).RateOf(w.Throughput) ?? 0, w.PeakPerSecond,
        w.LatencyMs.P50 ?? 0, w.LatencyMs.P95, w.LatencyMs.P99 ?? 0, w.LatencyMs.Max ?? 0, w.Operations, w.Throttled, w.Failed,
        w.ClientCpuMicrosecondsPerEntity ?? w.ClientCpuMicrosecondsPerMegabyte, w.PerSecondSpread)
    {
        LatencySamples = w.LatencyMs.Samples, DurationSeconds = w.DurationSeconds,
    };
}
