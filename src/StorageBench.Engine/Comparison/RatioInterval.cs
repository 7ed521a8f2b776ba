using System.Globalization;

namespace StorageBench.Engine.Comparison;

/// <summary>
/// candidate / baseline over alternated rounds: the Hodges–Lehmann estimate (the median of every
/// candidate-over-baseline ratio) and its exact Mann–Whitney confidence interval (order statistics
/// of those ratios). Rank-based, so one stalled round cannot move it, and exact for small samples:
/// no normal approximation and no bootstrap resampling of five values.
/// </summary>
/// <param name="Low">Lower bound of the interval; null when too few rounds for the confidence asked.</param>
/// <param name="AchievedConfidence">The exact coverage of the interval (a little above the confidence asked: ranks are discrete).</param>
public sealed record RatioInterval(double Ratio, double? Low, double? High, double Confidence, double? AchievedConfidence, int BaselineRounds, int CandidateRounds)
{
    /// <summary>
    /// The estimate from each side's per-round values (all above zero). At 95 % the interval needs
    /// <see cref="ChangeRule.MinRoundsASide"/> rounds a side.
    /// </summary>
    public static RatioInterval Estimate(IReadOnlyList<double> baseline, IReadOnlyList<double> candidate, double confidence = 0.95)
    {
        if (baseline.Count == 0 || candidate.Count == 0 || baseline.Concat(candidate).Any(v => !(v > 0) || double.IsInfinity(v)))
        {
            throw new ArgumentException("every round needs a value above zero on both sides");
        }
        var ratios = new double[baseline.Count * candidate.Count];
        int k = 0;
        foreach (double b in baseline)
        {
            foreach (double c in candidate)
            {
                ratios[k++] = c / b;
            }
        }
        Array.Sort(ratios);
        double estimate = Robust.Median(ratios);
        // Largest u with P(U ≤ u) ≤ α/2; the interval is the (u+1)-th smallest to the (u+1)-th largest ratio.
        var cumulative = MannWhitneyCumulative(baseline.Count, candidate.Count);
        double alpha = 1 - confidence;
        int u = -1;
        while (u + 1 < cumulative.Length && cumulative[u + 1] <= alpha / 2)
        {
            u++;
        }
        if (u < 0)
        {
            return new RatioInterval(estimate, null, null, confidence, null, baseline.Count, candidate.Count);
        }
        return new RatioInterval(estimate, ratios[u], ratios[^(u + 1)], confidence, 1 - 2 * cumulative[u], baseline.Count, candidate.Count);
    }

    /// <summary>P(U ≤ u) for u = 0..nm under no difference (every ordering of the n + m values equally likely).</summary>
    public static double[] MannWhitneyCumulative(int n, int m)
    {
        // ways[j][u]: orderings of i baseline and j candidate values with U = u; built up one baseline value at a time.
        var ways = new double[m + 1][];
        for (int j = 0; j <= m; j++)
        {
            ways[j] = new double[n * m + 1];
            ways[j][0] = 1; // i = 0: one ordering, U = 0
        }
        for (int i = 1; i <= n; i++)
        {
            var next = new double[m + 1][];
            next[0] = new double[n * m + 1];
            next[0][0] = 1;
            for (int j = 1; j <= m; j++)
            {
                next[j] = new double[n * m + 1];
                for (int u = 0; u <= i * j; u++)
                {
                    // The largest value is a baseline one (it beats all j candidates) or a candidate one.
                    next[j][u] = (u >= j ? ways[j][u - j] : 0) + next[j - 1][u];
                }
            }
            ways = next;
        }
        double total = ways[m].Sum();
        var cumulative = new double[n * m + 1];
        double sum = 0;
        for (int u = 0; u < cumulative.Length; u++)
        {
            sum += ways[m][u];
            cumulative[u] = sum / total;
        }
        return cumulative;
    }
}

/// <summary>
/// The A/B verdict on one metric: a change is claimed only when the whole interval lies beyond the
/// threshold (Criterion.rs style); otherwise it is within noise. An interval that excludes 1.0 but
/// reaches into ±threshold is said so: real, maybe, but too small to claim on a shared machine.
/// </summary>
public static class AbVerdict
{
    /// <param name="higherIsBetter">Throughput: a lower ratio is "slower". Latency: a higher ratio is "worse".</param>
    public static ChangeJudgement Decide(RatioInterval r, double threshold, bool higherIsBetter) =>
        r.Low is not { } low || r.High is not { } high
            ? ChangeJudgement.CannotJudge(ChangeRule.RoundsReason(r.BaselineRounds, r.CandidateRounds) ?? "no interval at this confidence")
            // The one rule (ChangeRule): the interval of candidate / baseline − 1 against ±threshold.
            : ChangeRule.Decide(low - 1, high - 1, threshold, higherIsBetter);

    /// <summary>The verdict's words (<see cref="VerdictWords"/>).</summary>
    public static string Judge(RatioInterval r, double threshold, bool higherIsBetter) => VerdictWords.Of(Decide(r, threshold, higherIsBetter).Outcome, higherIsBetter);

    /// <summary>"candidate / baseline = 0.74 (95 % CI 0.70–0.78): slower".</summary>
    public static string Sentence(string metric, RatioInterval r, double threshold, bool higherIsBetter)
    {
        var judgement = Decide(r, threshold, higherIsBetter);
        string verdict = VerdictWords.Of(judgement.Outcome, higherIsBetter) + (judgement.IntervalExcludesNoChange
            ? string.Create(CultureInfo.InvariantCulture, $" (the interval excludes 1.0 but reaches into ±{threshold * 100:0.#}%: too small to claim)") : "");
        string ci = r.Low is { } low && r.High is { } high
            ? string.Create(CultureInfo.InvariantCulture, $"{r.Confidence * 100:0} % CI {low:0.00}–{high:0.00}")
            : string.Create(CultureInfo.InvariantCulture, $"no {r.Confidence * 100:0} % CI: {ChangeRule.RoundsReason(r.BaselineRounds, r.CandidateRounds) ?? "too few rounds"}");
        return string.Create(CultureInfo.InvariantCulture, $"{metric}: candidate / baseline = {r.Ratio:0.00} ({ci}): {verdict}");
    }
}
