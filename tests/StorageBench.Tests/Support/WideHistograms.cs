using StorageBench.Engine.Measurement;

namespace StorageBench.Tests;

/// <summary>Histograms with counts in many of their buckets: the widest spread a long, fast run's latencies can have.</summary>
internal static class WideHistograms
{
    /// <summary>Every <paramref name="stride"/>-th bucket from <paramref name="lowest"/> to <paramref name="highest"/> µs, each holding a count from <paramref name="count"/>.</summary>
    public static LatencyHistogram Filled(long lowest, long highest, int stride, Func<long> count)
    {
        var histogram = LatencyHistograms.Create();
        int bucket = 0;
        for (long micros = Math.Max(1, lowest); micros <= Math.Min(highest, LatencyHistograms.HighestTrackableMicros); micros = histogram.NextNonEquivalentValue(micros))
        {
            if (bucket++ % stride == 0)
            {
                histogram.RecordValueWithCount(micros, count());
            }
        }
        return histogram;
    }

    /// <summary>Every bucket of the range, each holding a count from <paramref name="count"/>.</summary>
    public static LatencyHistogram Full(Func<long> count) => Filled(1, LatencyHistograms.HighestTrackableMicros, 1, count);
}
