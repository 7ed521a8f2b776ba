using System.Numerics;
using HdrHistogram;

namespace StorageBench.Engine.Measurement;

/// <summary>A latency histogram (µs, up to an hour, 3 significant digits) whose counts <see cref="LatencyHistograms.Encode"/> reads in place.</summary>
public sealed class LatencyHistogram() : LongHistogram(LatencyHistograms.HighestTrackableMicros, LatencyHistograms.SignificantDigits)
{
    /// <summary>The length of the counts array for these bounds (HdrHistogram's layout: buckets + 1 halves of sub-buckets).</summary>
    internal static readonly int CountsArrayLength = CountsLengthFor(LatencyHistograms.HighestTrackableMicros, LatencyHistograms.SignificantDigits);

    internal long CountAt(int index) => GetCountAtIndex(index);

    /// <summary>Adds to a bucket's count and the total, as the library's own Add does.</summary>
    internal void AddCountAt(int index, long count) => AddToCountAtIndex(index, count);

    private static int CountsLengthFor(long highest, int digits)
    {
        // Lowest trackable value 1: sub-buckets span 2 × 10^digits, rounded up to a power of two; each bucket doubles the range.
        int subBucketCount = (int)BitOperations.RoundUpToPowerOf2((uint)(2 * Math.Pow(10, digits)));
        int buckets = 1;
        for (long smallestUntrackable = subBucketCount; smallestUntrackable <= highest; smallestUntrackable <<= 1)
        {
            buckets++;
        }
        return (buckets + 1) * (subBucketCount / 2);
    }
}
