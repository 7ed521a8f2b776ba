
namespace StorageBench.Engine.ResultsStore;

/// <summary>What a step stores about itself: the run it belongs to, its place in a sweep, and its outcome.</summary>
/// <param name="Workloads">The step's workloads; their timelines and distributions are not stored (the headline figures and the histogram are).</param>
public sealed record StepRecord(string RunId, string Scenario, DateTime RunStartedUtc, DateTime EndedUtc, RunEnvironment Environment,
    int StepIndex, string? Parameter, double? Value, string Status, IReadOnlyList<string> Errors, IReadOnlyList<WorkloadSummary> Workloads)
{
    /// <summary>The step's notes (<see cref="RunSummary.Notes"/>).</summary>
    public IReadOnlyList<string> Notes { get; init; } = [];

    /// <summary>The step's workloads that have no figures, and why.</summary>
    public IReadOnlyList<UnmeasuredWorkload> Unmeasured { get; init; } = [];
}
