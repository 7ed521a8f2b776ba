namespace StorageBench.Engine.Statistics;

/// <summary>
/// Every request the tool sent to the target accounts outside the measured path, by phase, counted on the wire by
/// the side calls' own clients (SDK retries included): preflight's checks, creating each step's table or container
/// (prepare), the slices' priming before the start instant, verification's reads (and deletes of what other
/// executions left), and deleting the step's table or container and, for a nightly run, old leftovers (cleanup).
/// The measured window's requests (warm-up included) are the workloads' own figures. The task hub, cancel signals,
/// progress rows and results are the control plane's, not counted here.
/// </summary>
/// <param name="Uncounted">Phases a call of which failed before it could report its count: what it sent is missing above, so the total is a lower bound.</param>
public sealed record TargetSideRequests(long Preflight, long Prepare, long Priming, long Verify, long Cleanup, IReadOnlyList<string> Uncounted)
{
    public static TargetSideRequests None { get; } = new(0, 0, 0, 0, 0, []);

    /// <summary>A reading workload's seeding: what it wrote for its slices to read, before the measured window.</summary>
    public long Seed { get; init; }

    public long Total => Preflight + Prepare + Seed + Priming + Verify + Cleanup;

    public TargetSideRequests Add(TargetSideRequests other) => new(Preflight + other.Preflight, Prepare + other.Prepare, Priming + other.Priming,
        Verify + other.Verify, Cleanup + other.Cleanup, [.. Uncounted.Union(other.Uncounted, StringComparer.Ordinal)])
    {
        Seed = Seed + other.Seed,
    };

    /// <summary>The same counts, with <paramref name="phases"/> named as not fully counted.</summary>
    public TargetSideRequests Missing(params string[] phases) => this with { Uncounted = [.. Uncounted.Union(phases, StringComparer.Ordinal)] };

    public const string PreflightPhase = "preflight";
    public const string PreparePhase = "prepare";
    public const string PrimingPhase = "priming";
    public const string VerifyPhase = "verify";
    public const string CleanupPhase = "cleanup";
}
