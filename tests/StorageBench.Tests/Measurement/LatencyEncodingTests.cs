using CsCheck;
using HdrHistogram;
using HdrHistogram.Utilities;
using StorageBench.Engine.Measurement;

namespace StorageBench.Tests;

/// <summary>
/// The histogram encoding every slice result and progress row carries is HdrHistogram's own V2 compressed form: the
/// library's decoder reads back exactly what was recorded, bucket by bucket, as it reads the library's own encoding.
/// </summary>
[Trait("Category", "Unit")]
public class LatencyEncodingTests
{
    /// <summary>Samples spread over every magnitude the histogram tracks (1 µs to an hour), some repeated many times.</summary>
    private static readonly Gen<(long Micros, int Count)[]> Recordings =
        Gen.Select(Gen.Int[0, 31], Gen.Int[1, 1000], (bits, count) => (bits, count))
            .SelectMany(t => Gen.Long[1, Math.Min(LatencyHistograms.HighestTrackableMicros, 1L << t.bits)].Select(v => (v, t.count)))
            .Array[0, 200];

    [Fact]
    public void TheLibrarysDecoderReadsBackEveryBucketAsFromItsOwnEncoding()
    {
        Recordings.Sample(recordings =>
        {
            var recorded = LatencyHistograms.Create();
            foreach (var (micros, count) in recordings)
            {
                recorded.RecordValueWithCount(micros, count);
            }

            var ours = LatencyHistograms.Decode(LatencyHistograms.Encode(recorded));
            var theirs = LatencyHistograms.Decode(LibraryEncoding(recorded));

            Assert.Equal(recorded.TotalCount, ours.TotalCount);
            Assert.Equal(Buckets(recorded), Buckets(ours));
            Assert.Equal(Buckets(theirs), Buckets(ours));
            Assert.Equal(recorded.HighestTrackableValue, ours.HighestTrackableValue);
            Assert.Equal(recorded.NumberOfSignificantValueDigits, ours.NumberOfSignificantValueDigits);
            if (recorded.TotalCount > 0)
            {
                Assert.Equal(recorded.GetMaxValue(), ours.GetMaxValue());
                Assert.Equal(recorded.GetValueAtPercentile(99), ours.GetValueAtPercentile(99));
            }
        }, iter: 300);
    }

    [Fact]
    public void AHistogramWithEveryBucketFilledAndLargeCountsReadsBack()
    {
        // A long, fast run: tens of thousands of buckets with counts in the millions make a payload of many deflate
        // blocks, which the library's own decoder refused (it inflates with one Stream.Read) and a 30-minute soak hit.
        Gen.Long[1_000_000, 4_000_000_000].Sample(scale =>
        {
            var recorded = LatencyHistograms.Create();
            long i = 0;
            for (long v = 1; v < LatencyHistograms.HighestTrackableMicros; v = v * 1001 / 1000 + 1)
            {
                recorded.RecordValueWithCount(v, scale + (i++ * 7919 % scale));
            }

            var decoded = LatencyHistograms.Decode(LatencyHistograms.Encode(recorded));

            Assert.Equal(recorded.TotalCount, decoded.TotalCount);
            Assert.Equal(Buckets(recorded), Buckets(decoded));
        }, iter: 5);
    }

    [Fact]
    public void EncodingAHistogramAllocatesAFractionOfItsCountsArray()
    {
        var h = LatencyHistograms.Create();
        for (long v = 1; v < LatencyHistograms.HighestTrackableMicros; v = v * 11 / 10 + 1)
        {
            h.RecordValue(v);
        }
        LatencyHistograms.Encode(h);

        long before = GC.GetAllocatedBytesForCurrentThread();
        LatencyHistograms.Encode(h);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        // The counts array alone is ~188 KB; the library's encoder allocated it twice more on every call.
        Assert.True(allocated < 64 * 1024, $"{allocated:N0} bytes allocated to encode one histogram");
    }

    private static string LibraryEncoding(HistogramBase h)
    {
        var buffer = ByteBuffer.Allocate(h.GetNeededByteBufferCapacity());
        int length = h.EncodeIntoCompressedByteBuffer(buffer);
        buffer.Position = 0;
        var bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = buffer.Get();
        }
        return Convert.ToBase64String(bytes);
    }

    private static List<(long Value, long Count)> Buckets(HistogramBase h) =>
        [.. h.RecordedValues().Select(v => (v.ValueIteratedTo, v.CountAtValueIteratedTo))];
}
