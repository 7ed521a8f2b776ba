using System.Globalization;

namespace StorageBench.Engine.Comparison;

/// <summary>What a metric's noise is, for the rule to judge its change against.</summary>
public enum NoiseKind
{
    /// <summary>
    /// A figure over the whole run (throughput, latency percentiles, CPU per unit): its noise is the
    /// standard error of the run's mean per-second rate, as a share of it. In a closed loop latency and
    /// CPU per unit move with the rate (throughput × mean latency = requests in flight).
    /// </summary>
    RunMean,
    /// <summary>One second's figure (the peak): its noise is the second-to-second deviation itself, as a share of the mean.</summary>
    OneSecond,
    /// <summary>A share of the requests (throttled, failed): judged in percentage points against the share floor.</summary>
    Share,
    /// <summary>One request (the maximum latency): no noise estimate, so shown and never judged.</summary>
    NotJudged,
}

/// <summary>
/// When a change is larger than the runs' own noise. The noise method is the per-second spread: each
/// run's per-second rates over the window in which all its slices were active (<see cref="RateSpread"/>:
/// their second-to-second deviation σ) give the standard error of its mean rate, σ/√n; the two runs'
/// relative standard errors combine as √(a² + b²). A change is beyond noise when it exceeds
/// max(<see cref="Sigmas"/> × that, the metric's floor). Where the results table holds enough earlier runs
/// of the scenario, their run-to-run spread replaces this (<see cref="HistoryBand"/>), as in the nightly check. The floors are the run-to-run differences measured between runs of one spec on one
/// machine (docs/comparing.md): separate runs differ by more than one run's seconds do, so
/// the standard error alone would flag runs of the same spec. Without a usable spread on either side (an
/// older summary or results row, or a window shorter than <see cref="MinSamples"/> whole seconds), the
/// run-level metrics are not judged (<see cref="NotJudgedReason"/>), and the comparison says why
/// (docs/comparing.md, "The rule").
/// </summary>
public sealed record NoiseRule
{
    public static readonly NoiseRule Default = new();

    public double Sigmas { get; init; } = 3;

    /// <summary>Fewer whole seconds than this give too unsteady a standard deviation to use.</summary>
    public int MinSamples { get; init; } = ChangeRule.MinWholeSeconds;

    // The floors (docs/comparing.md): about 1.3–1.5 × the largest difference measured between
    // runs of one spec while the machine stayed in one state; throughput's is also as wide as it can be
    // while a 20% slowdown stays beyond it.
    public double ThroughputFloor { get; init; } = 0.15;
    public double PeakFloor { get; init; } = 0.40;
    public double LatencyP50Floor { get; init; } = 0.20;
    public double LatencyP95Floor { get; init; } = 0.35;
    public double LatencyP99Floor { get; init; } = 0.50;
    public double CpuFloor { get; init; } = 0.40;

    /// <summary>Percentage points (as a share) a failure share may move: the spec's default maxUnstoredShare.</summary>
    public double ShareFloor { get; init; } = 0.01;

    /// <summary>
    /// A latency percentile q is judged only when each run has at least this many successful requests
    /// above it (n ≥ this / (1 − q): p50 20, p95 200, p99 1,000): with fewer, the "p99" is one of the
    /// slowest handful of requests, and one stall moves it.
    /// </summary>
    public int MinSamplesAbovePercentile { get; init; } = PercentileSupport.SamplesAbove;

    /// <summary>Earlier completed runs of the scenario (and step) needed before their run-to-run spread is the noise: the nightly check's minimum.</summary>
    public int MinHistoryRuns { get; init; } = ChangeRule.MinBaselineRuns;

    /// <summary>With a run-to-run spread measured, the smallest change claimed: the nightly check's minimum relative change.</summary>
    public double MinRelativeChange { get; init; } = 0.05;

    /// <summary>
    /// Why a metric cannot be judged between these two runs (null when it can): a measured window
    /// under <see cref="MinSamples"/> whole seconds with all slices active, or too few latency samples.
    /// </summary>
    public string? NotJudgedReason(NoiseKind kind, double? quantile, WorkloadFigures a, WorkloadFigures b)
    {
        if (kind is NoiseKind.NotJudged or NoiseKind.Share)
        {
            return null;
        }
        foreach (var (role, w) in new[] { ("baseline", a), ("candidate", b) })
        {
            if (Usable(w.Spread) is null)
            {
                return ChangeRule.WindowReason("the " + role, w.Spread?.Samples);
            }
            if (quantile is { } q && ChangeRule.PercentileReason("the " + role, q, w.LatencySamples, w.DurationSeconds, MinSamplesAbovePercentile) is { } why)
            {
                return why;
            }
        }
        return null;
    }

    /// <summary>
    /// The band from the scenario's earlier runs: 3 × √2 × their relative run-to-run σ (1.4826 × MAD / median;
    /// √2 because both runs compared are single runs), never under <see cref="MinRelativeChange"/>. Null when
    /// there are fewer than <see cref="MinHistoryRuns"/> of them.
    /// </summary>
    public double? HistoryBand(RunToRunSpread? history, Func<RunToRunSpread, double?> metric) =>
        history is { } h && h.Runs >= MinHistoryRuns && metric(h) is { } sigma ? Math.Max(Sigmas * Math.Sqrt(2) * sigma, MinRelativeChange) : null;

    /// <summary>The spread if it is usable as a noise estimate; null when absent or too short.</summary>
    public RateSpread? Usable(RateSpread? spread) => spread is { Mean: > 0 } s && s.Samples >= MinSamples ? s : null;

    /// <summary>
    /// The relative band (a share of the baseline) for a metric of this kind and floor; null for a
    /// metric that is not judged. <paramref name="estimated"/> is false when the floor alone is the band.
    /// </summary>
    public double? RelativeBand(NoiseKind kind, double floor, RateSpread? baseline, RateSpread? candidate, out bool estimated)
    {
        estimated = false;
        if (kind is NoiseKind.NotJudged or NoiseKind.Share)
        {
            return kind == NoiseKind.Share ? floor : null;
        }
        if (Usable(baseline) is not { } a || Usable(candidate) is not { } b)
        {
            return floor;
        }
        estimated = true;
        double Noise(RateSpread s) => kind == NoiseKind.OneSecond ? s.SecondToSecondDeviation / s.Mean : s.RelativeStandardError() ?? 0;
        return Math.Max(Sigmas * Math.Sqrt(Noise(a) * Noise(a) + Noise(b) * Noise(b)), floor);
    }

    /// <summary>The rule in one paragraph, for the report and the console.</summary>
    public string Describe() => string.Create(CultureInfo.InvariantCulture,
        $"Noise method: per-second spread. Each run's per-second rates while all its slices were active give the standard error of its mean rate " +
        $"(σ/√n, σ from second-to-second steps, at least {MinSamples} whole seconds); a change is beyond noise when it exceeds max({Sigmas:0.#} × the two runs' combined relative standard error, " +
        $"the metric's run-to-run floor: throughput {ThroughputFloor:0%}, p50 {LatencyP50Floor:0%}, p95 {LatencyP95Floor:0%}, p99 {LatencyP99Floor:0%}, " +
        $"CPU per unit {CpuFloor:0%}); the peak second uses σ itself (floor {PeakFloor:0%}); failure shares " +
        $"may move {ShareFloor * 100:0.#} percentage point; the maximum latency is one request and is not judged. " +
        $"With at least {MinHistoryRuns} earlier completed runs of the scenario in the results table, their run-to-run spread is the noise instead (the nightly check's rule): " +
        $"beyond noise means beyond max({Sigmas:0.#} × √2 × their relative σ (1.4826 × MAD / median), {MinRelativeChange:0%}). " +
        $"Judged only when measured well enough: at least {MinSamples} whole seconds with every slice active on both sides, and for a latency percentile q at least " +
        $"{MinSamplesAbovePercentile}/(1 − q) samples (p99: {MinSamplesAbovePercentile / 0.01:N0}); runs of different specs only when asked.");
}
