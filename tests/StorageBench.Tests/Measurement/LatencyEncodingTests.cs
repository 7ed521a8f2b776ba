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

    [Fact]
    public void TheProgressFormReadsBackEveryBucketAndNeedsNoEscapingInJson()
    {
        Recordings.Sample(recordings =>
        {
            var recorded = Recorded(recordings);

            string progress = LatencyHistograms.EncodeForProgress(recorded);
            var decoded = LatencyHistograms.Decode(progress);

            Assert.Equal(recorded.TotalCount, decoded.TotalCount);
            Assert.Equal(Buckets(recorded), Buckets(decoded));
            // What the Tables SDK's JSON writer escapes it writes through a rented array six times the value's length.
            Assert.Equal(progress, System.Text.Json.JsonEncodedText.Encode(progress).Value);
        }, iter: 200);
    }

    [Fact]
    public void AddingEncodingsInPlaceIsTheExactMergeInEitherForm()
    {
        Gen.Select(Recordings, Recordings).Sample((first, second) =>
        {
            var a = Recorded(first);
            var b = Recorded(second);
            var expected = LatencyHistograms.Create();
            expected.Add(a);
            expected.Add(b);

            var merged = LatencyHistograms.Create();
            LatencyHistograms.AddTo(merged, LatencyHistograms.Encode(a, LatencyHistograms.Compact));
            LatencyHistograms.AddTo(merged, LatencyHistograms.EncodeForProgress(b));

            Assert.Equal(expected.TotalCount, merged.TotalCount);
            Assert.Equal(Buckets(expected), Buckets(merged));
        }, iter: 200);
    }

    [Fact]
    public void AddingAnEncodingInPlaceAllocatesAFractionOfACountsArray()
    {
        var h = WideHistograms.Filled(1, LatencyHistograms.HighestTrackableMicros, 10, () => 1_000);
        string encoded = LatencyHistograms.EncodeForProgress(h);
        var target = LatencyHistograms.Create();
        LatencyHistograms.AddTo(target, encoded);

        long before = GC.GetAllocatedBytesForCurrentThread();
        LatencyHistograms.AddTo(target, encoded);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        // A histogram decoded on its own is a new ~188 KB counts array (the large object heap) besides the library's copies.
        Assert.True(allocated < 64 * 1024, $"{allocated:N0} bytes allocated to add one encoded histogram");
        Assert.Equal(2 * h.TotalCount, target.TotalCount);
    }

    private static LatencyHistogram Recorded((long Micros, int Count)[] recordings)
    {
        var recorded = LatencyHistograms.Create();
        foreach (var (micros, count) in recordings)
        {
            recorded.RecordValueWithCount(micros, count);
        }
        return recorded;
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
