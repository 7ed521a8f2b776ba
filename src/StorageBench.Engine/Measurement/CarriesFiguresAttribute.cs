namespace StorageBench.Engine.Measurement;

/// <summary>
/// Marks an orchestration payload that carries measured figures: up to <see cref="Histograms"/> encoded latency histograms and
/// <see cref="Timelines"/> timelines (each, with <see cref="PerWorkload"/>, once per workload of a step). Such a payload grows
/// with a run's rate and spread of latencies, not with its shape alone, so the orchestration's payload budget gives it the
/// figures tier, sized from these counts, where every other payload keeps the control tier.
/// </summary>
[AttributeUsage(AttributeTargets.Class, Inherited = false)]
public sealed class CarriesFiguresAttribute(int histograms, int timelines) : Attribute
{
    public int Histograms { get; } = histograms;

    public int Timelines { get; } = timelines;

    /// <summary>The counts are a workload's: a step's payload carries them for each of its workloads.</summary>
    public bool PerWorkload { get; init; }
}
