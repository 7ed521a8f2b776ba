
namespace StorageBench.Engine.Statistics;

/// <summary>
/// What one worker process did in a workload: its slices, its rate over its own measured window (entities/s or MB/s) and
/// its CPU per unit (µs per entity or per MB, warm-up included, as the workload's headline CPU figure counts it).
/// </summary>
public sealed record WorkerFigures(string Worker, int Slices, long Units, double UnitsPerSecond, double? CpuMicrosecondsPerUnit)
{
    /// <summary>One row per worker that handed back slices, by name.</summary>
    public static IReadOnlyList<WorkerFigures> Of(IEnumerable<SliceResult> slices, WorkloadKind kind) =>
        [.. slices.GroupBy(s => s.Worker).OrderBy(g => g.Key, StringComparer.Ordinal).Select(g =>
        {
            double seconds = (g.Max(s => s.EndedUtc) - g.Min(s => s.StartedUtc)).TotalSeconds;
            long units = g.Sum(s => s.Units);
            double all = (units + g.Sum(s => s.WarmupUnits)) / kind.CountedPerUnit;
            double cpu = SummaryCalculator.ClientCpuSeconds(g);
            return new WorkerFigures(g.Key, g.Count(), units, seconds > 0 ? units / kind.CountedPerUnit / seconds : 0, all > 0 ? cpu * 1e6 / all : null);
        })];

    /// <summary>"machine" of "machine/pid": workers on one machine are one instance.</summary>
    public static string MachineOf(string worker) => worker.LastIndexOf('/') is > 0 and var slash ? worker[..slash] : worker;
}
