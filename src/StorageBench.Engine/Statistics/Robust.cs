namespace StorageBench.Engine.Statistics;

/// <summary>
/// The median and the median absolute deviation (MAD): the centre and spread every verdict takes from a handful of
/// runs or rounds, because one stalled run cannot move them.
/// </summary>
public static class Robust
{
    /// <summary>MAD × this estimates σ when the values are normal.</summary>
    public const double MadToSigma = 1.4826;

    /// <summary>The middle value (the mean of the two middle ones for an even count); NaN for none.</summary>
    public static double Median(IEnumerable<double> values)
    {
        var sorted = values.Order().ToArray();
        int n = sorted.Length;
        return n == 0 ? double.NaN : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /// <summary>The median of the distances from <paramref name="median"/>.</summary>
    public static double Mad(IEnumerable<double> values, double median) => Median(values.Select(x => Math.Abs(x - median)));

    /// <summary>A robust σ: <see cref="MadToSigma"/> × MAD.</summary>
    public static double Sigma(IReadOnlyCollection<double> values) => MadToSigma * Mad(values, Median(values));
}
