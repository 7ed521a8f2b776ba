using System.Globalization;
using System.Text.Json.Serialization;

namespace StorageBench.Engine.Comparison;

/// <summary>What <see cref="ChangeRule"/> decided about one metric. Stored by name (summary.json, payloads); its words are <see cref="VerdictWords"/>.</summary>
[JsonConverter(typeof(JsonStringEnumConverter<ChangeOutcome>))]
public enum ChangeOutcome
{
    /// <summary>Not measured well enough to say anything: the judgement's <see cref="ChangeJudgement.Why"/> says what is missing and what to change.</summary>
    CannotJudge,
    /// <summary>No change beyond the noise (or the threshold) was detected.</summary>
    NoChange,
    /// <summary>Slower (a rate) or worse (latency, shares, CPU), beyond the noise.</summary>
    Worse,
    /// <summary>Faster or better, beyond the noise.</summary>
    Better,
}

/// <summary>What a verdict is about, which picks the words for a change (<see cref="VerdictWords"/>).</summary>
public enum Judged
{
    /// <summary>A rate, where higher is better: slower / faster.</summary>
    Rate,
    /// <summary>Any other metric (latency, shares, CPU), where lower is better: worse / better.</summary>
    Metric,
    /// <summary>A whole run against its baseline, over metrics of both kinds (the nightly check): regressed / improved.</summary>
    Run,
}

/// <summary>
/// The one mapping from <see cref="ChangeOutcome"/> to words: what compare, ab, the nightly check, the reports, the
/// results rows and the telemetry say. "within noise" is no change beyond the band; "not judged" is a metric or run
/// not measured well enough (the judgement's reason says what to change).
/// </summary>
public static class VerdictWords
{
    public const string NotJudged = "not judged";
    public const string WithinNoise = "within noise";
    public const string Slower = "slower";
    public const string Faster = "faster";
    public const string Worse = "worse";
    public const string Better = "better";
    public const string Regressed = "regressed";
    public const string Improved = "improved";

    public static string Of(ChangeOutcome outcome, Judged what) => outcome switch
    {
        ChangeOutcome.CannotJudge => NotJudged,
        ChangeOutcome.NoChange => WithinNoise,
        ChangeOutcome.Worse => what switch { Judged.Rate => Slower, Judged.Metric => Worse, _ => Regressed },
        _ => what switch { Judged.Rate => Faster, Judged.Metric => Better, _ => Improved },
    };

    /// <summary>A metric's words: a rate's when higher is better, else another metric's.</summary>
    public static string Of(ChangeOutcome outcome, bool higherIsBetter) => Of(outcome, higherIsBetter ? Judged.Rate : Judged.Metric);
}

/// <param name="IntervalExcludesNoChange">For <see cref="ChangeOutcome.NoChange"/> from an interval: it excludes "no change" but reaches into the band (too small to claim).</param>
public sealed record ChangeJudgement(ChangeOutcome Outcome, string? Why = null, bool IntervalExcludesNoChange = false)
{
    public static ChangeJudgement CannotJudge(string why) => new(ChangeOutcome.CannotJudge, why);

    public bool Judged => Outcome != ChangeOutcome.CannotJudge;
}

/// <summary>
/// The one "did it change?" rule every verdict uses — storagebench compare (and the runs API's and the dashboard's
/// compare, which call it), storagebench ab, and the nightly regression check: what it takes to judge a metric at
/// all (a measured window of <see cref="MinWholeSeconds"/> whole seconds, <see cref="PercentileSupport"/> for a
/// percentile, <see cref="MinBaselineRuns"/> earlier runs for a trailing baseline, <see cref="MinRoundsASide"/> rounds
/// for an interval), and, once judged, worse / better / no change (<see cref="VerdictWords"/>): a change is claimed only when all of
/// it lies beyond the band on one side. Each verdict brings its own estimate of the change (one run against
/// another, a run against the median of earlier runs, an interval over alternated rounds) and its own band (the
/// runs' noise, the baseline's spread, the threshold); this decides. A reason it cannot judge always names what to change.
/// </summary>
public static class ChangeRule
{
    /// <summary>Fewer whole seconds with every slice active give too unsteady a per-second deviation to use as the noise.</summary>
    public const int MinWholeSeconds = 5;

    /// <summary>
    /// A durationSeconds (after warmupSeconds) that gives <see cref="MinWholeSeconds"/> whole seconds with every slice active:
    /// the window starts at the next whole second after the last slice starts and ends at the last whole second before the first one ends.
    /// </summary>
    public const int MinDurationSeconds = MinWholeSeconds + 2;

    /// <summary>Earlier completed runs of a scenario needed before their spread is a baseline (the nightly check).</summary>
    public const int MinBaselineRuns = 5;

    /// <summary>Rounds a side for a 95 % interval: with 3, even a complete separation has probability 1/20.</summary>
    public const int MinRoundsASide = 4;

    /// <summary>
    /// The decision, once a metric can be judged: the change as an interval [<paramref name="low"/>, <paramref name="high"/>]
    /// (a single estimate has low = high), in the same unit as <paramref name="band"/>, 0 meaning no change. Worse or better
    /// only when the whole interval lies beyond ±band.
    /// </summary>
    public static ChangeJudgement Decide(double low, double high, double band, bool higherIsBetter)
    {
        if (high < -band)
        {
            return new(higherIsBetter ? ChangeOutcome.Worse : ChangeOutcome.Better);
        }
        if (low > band)
        {
            return new(higherIsBetter ? ChangeOutcome.Better : ChangeOutcome.Worse);
        }
        return new(ChangeOutcome.NoChange, IntervalExcludesNoChange: low > 0 || high < 0);
    }

    /// <summary>Why a run measured over <paramref name="wholeSeconds"/> whole seconds cannot be judged; null when it can.</summary>
    public static string? WindowReason(string who, int? wholeSeconds) =>
        wholeSeconds is { } s && s >= MinWholeSeconds ? null
            : wholeSeconds is null
                ? $"{who} has no per-second spread (a run under two whole seconds with every slice active, or one recorded before it was kept); " + DurationFix
                : $"{who}'s measured window has {wholeSeconds} whole second(s) with every slice active; at least {MinWholeSeconds} are needed to know its noise; " + DurationFix;

    /// <summary>What to change so the window is long enough.</summary>
    public static string DurationFix => $"set durationSeconds ≥ {MinDurationSeconds} (plus warmupSeconds)";

    /// <summary>
    /// Why a percentile q from <paramref name="samples"/> latency samples cannot be judged (<see cref="PercentileSupport"/>); null when it can.
    /// With the run's measured seconds, says how long a run gives enough samples at its rate.
    /// </summary>
    public static string? PercentileReason(string who, double quantile, long? samples, double? durationSeconds, int samplesAbove = PercentileSupport.SamplesAbove)
    {
        long needed = PercentileSupport.MinSamples(quantile, samplesAbove);
        if (samples is not { } n || n >= needed)
        {
            return null;
        }
        string fix = n > 0 && durationSeconds is > 0 and { } d
            ? string.Create(CultureInfo.InvariantCulture, $"; at this rate set durationSeconds ≥ {Math.Ceiling(needed * d / n):0}")
            : "; run longer";
        return string.Create(CultureInfo.InvariantCulture,
            $"{who} has {n:N0} latency samples; {PercentileSupport.Name(quantile)} needs at least {needed:N0} ({samplesAbove} above it){fix}");
    }

    /// <summary>Why a trailing baseline of <paramref name="runs"/> earlier runs cannot judge; null when it can.</summary>
    public static string? BaselineReason(int runs, int minRuns = MinBaselineRuns) =>
        runs >= minRuns ? null
            : $"{runs} earlier completed run(s) of this scenario; at least {minRuns} are needed: {minRuns - runs} more run(s) of the scenario before it can be judged";

    /// <summary>Why an interval over rounds cannot be had; null when it can.</summary>
    public static string? RoundsReason(int baselineRounds, int candidateRounds) =>
        baselineRounds >= MinRoundsASide && candidateRounds >= MinRoundsASide ? null
            : $"{baselineRounds} and {candidateRounds} completed rounds with this figure; at least {MinRoundsASide} a side are needed, every round completing";
}
