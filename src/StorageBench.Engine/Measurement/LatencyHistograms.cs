using HdrHistogram;
using HdrHistogram.Utilities;

namespace StorageBench.Engine.Measurement;

/// <summary>Latency histograms in microseconds, and their compact transport form (compressed, base64).</summary>
public static class LatencyHistograms
{
    /// <summary>Up to one hour, 3 significant digits: ±0.1% at every magnitude.</summary>
    public const long HighestTrackableMicros = 3_600_000_000;
    public const int SignificantDigits = 3;

    public static LongHistogram Create() => new(HighestTrackableMicros, SignificantDigits);

    public static string Encode(HistogramBase histogram)
    {
        var buffer = ByteBuffer.Allocate(histogram.GetNeededByteBufferCapacity());
        int length = histogram.EncodeIntoCompressedByteBuffer(buffer);
        var bytes = new byte[length];
        buffer.Position = 0;
        for (int i = 0; i < length; i++)
        {
            bytes[i] = buffer.Get();
        }
        return Convert.ToBase64String(bytes);
    }

    public static HistogramBase Decode(string base64)
    {
        var buffer = ByteBuffer.Allocate(Convert.FromBase64String(base64));
        return HistogramEncoding.DecodeFromCompressedByteBuffer(buffer, 0);
    }

    /// <summary>Exact merge: counts are added bucket by bucket, so percentiles of the merge are percentiles of all samples.</summary>
    public static LongHistogram Merge(IEnumerable<string> encoded)
    {
        var merged = Create();
        foreach (var e in encoded)
        {
            merged.Add(Decode(e));
        }
        return merged;
    }
}
