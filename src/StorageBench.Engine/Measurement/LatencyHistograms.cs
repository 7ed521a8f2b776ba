using System.Buffers;
using System.Buffers.Binary;
using System.Buffers.Text;
using System.IO.Compression;
using HdrHistogram;
using HdrHistogram.Utilities;
using Microsoft.Extensions.ObjectPool;

namespace StorageBench.Engine.Measurement;

/// <summary>Latency histograms in microseconds, and their compact transport form (compressed, base64).</summary>
public static class LatencyHistograms
{
    /// <summary>Up to one hour, 3 significant digits: ±0.1% at every magnitude.</summary>
    public const long HighestTrackableMicros = 3_600_000_000;
    public const int SignificantDigits = 3;

    public static LatencyHistogram Create() => new();

    /// <summary>
    /// Recorders' histograms, handed back when their slice execution ends (<see cref="WorkerRecorder.Return"/>) and taken,
    /// cleared, by the next: each segment's 32 workers made new ones (188 KB each, on the large object heap) beside the
    /// last segment's dead ones, and a soak's GC heap stepped up by both at every segment boundary. It keeps at most as many
    /// as were recording at once, and never more than <see cref="MostPooled"/>.
    /// </summary>
    public static readonly ObjectPool<LatencyHistogram> Pool = new DefaultObjectPool<LatencyHistogram>(new Cleared(), MostPooled);

    /// <summary>Encodes a histogram taken from <see cref="Pool"/> and gives it back: a merge made only to be sent on keeps no counts array.</summary>
    public static string EncodeAndReturnToPool(LatencyHistogram pooled, CompressionLevel level)
    {
        try
        {
            return Encode(pooled, level);
        }
        finally
        {
            Pool.Return(pooled);
        }
    }

    /// <summary>Histograms recording at once in one process beyond this (slices × concurrency × lanes) are made anew past it.</summary>
    public const int MostPooled = 1024;

    private sealed class Cleared : PooledObjectPolicy<LatencyHistogram>
    {
        public override LatencyHistogram Create() => new();

        public override bool Return(LatencyHistogram histogram)
        {
            histogram.Reset();
            return true;
        }
    }

    /// <summary>
    /// HdrHistogram's V2 compressed form (what its decoders read), written from the counts in place. The library's own
    /// encoder copies the whole counts array twice (~580 KiB for these bounds) on every call, and a running slice is
    /// encoded each second for its progress row: 150 MB/s of garbage with 256 slices.
    /// </summary>
    /// <param name="level">Fastest for the progress rows written each second; <see cref="Compact"/> for a result that crosses
    /// the orchestration boundary, where a long, fast run's histogram must fit the payload budget.</param>
    public static string Encode(LatencyHistogram histogram, CompressionLevel level = CompressionLevel.Fastest) =>
        Convert.ToBase64String(Compressed(histogram, level, out int length), 0, length);

    /// <summary>
    /// <see cref="Encode"/>'s form for a progress row, written each second per slice: fastest, in base64url, which JSON
    /// carries as it is. Standard base64's '+' made the Tables SDK's JSON writer escape the whole value through a rented
    /// char array of six times its length (512 KB), and the shared pool kept one of those per thread that wrote a row.
    /// </summary>
    public static string EncodeForProgress(LatencyHistogram histogram) =>
        Base64Url.EncodeToString(Compressed(histogram, CompressionLevel.Fastest, out int length).AsSpan(0, length));

    private static byte[] Compressed(LatencyHistogram histogram, CompressionLevel level, out int length)
    {
        // The counts: ZigZag LEB128 words, a run of empty buckets as its negated length, nothing after the last non-empty one.
        var payload = new ArrayBufferWriter<byte>(256);
        for (int i = 0, end = LatencyHistogram.CountsArrayLength; i < end;)
        {
            long count = histogram.CountAt(i++);
            if (count == 0)
            {
                long zeros = 1;
                while (i < end && histogram.CountAt(i) == 0)
                {
                    zeros++;
                    i++;
                }
                if (i == end)
                {
                    break;
                }
                count = zeros > 1 ? -zeros : 0;
            }
            WriteZigZag(payload, count);
        }
        using var compressed = new MemoryStream();
        Span<byte> header = stackalloc byte[V2HeaderBytes];
        BinaryPrimitives.WriteInt32BigEndian(header, V2Cookie);
        BinaryPrimitives.WriteInt32BigEndian(header[4..], payload.WrittenCount);
        BinaryPrimitives.WriteInt32BigEndian(header[8..], 0); // normalizing index offset
        BinaryPrimitives.WriteInt32BigEndian(header[12..], histogram.NumberOfSignificantValueDigits);
        BinaryPrimitives.WriteInt64BigEndian(header[16..], histogram.LowestTrackableValue);
        BinaryPrimitives.WriteInt64BigEndian(header[24..], histogram.HighestTrackableValue);
        BinaryPrimitives.WriteDoubleBigEndian(header[32..], 1.0); // integer-to-double ratio
        compressed.Write([0, 0, 0, 0, 0, 0, 0, 0]); // the compressed cookie and length, written below
        using (var zlib = new ZLibStream(compressed, level, leaveOpen: true))
        {
            zlib.Write(header);
            zlib.Write(payload.WrittenSpan);
        }
        byte[] bytes = compressed.GetBuffer();
        length = (int)compressed.Length;
        BinaryPrimitives.WriteInt32BigEndian(bytes, V2CompressedCookie);
        BinaryPrimitives.WriteInt32BigEndian(bytes.AsSpan(4), length - 8);
        return bytes;
    }

    /// <summary>
    /// How a result's histograms are compressed: a third smaller than Fastest (a 2-minute run at 1.4 M entities/s on the
    /// benchmarks' floor made a step result of 38,866 bytes, over the payload budget, with Fastest and both histograms).
    /// </summary>
    public const CompressionLevel Compact = CompressionLevel.Optimal;

    /// <summary>
    /// The most UTF-8 bytes <see cref="Encode"/>'s form of a histogram of these bounds holding at most <paramref name="samples"/>
    /// samples can take inside a JSON payload, whatever its values and compression level: the counts' words at their longest
    /// (<see cref="LongestCountsBytes"/>) after the header, deflate's worst expansion (zlib-ng's compressBound, zutil.h: 9 bits
    /// a literal, a block's 3 bytes, the zlib wrapper's 6), the 8-byte prefix, base64, and '+' written as \u002B (System.Text.Json
    /// escapes it) at twice its share of base64's 64 letters.
    /// </summary>
    public static int LargestJsonBytes(long samples)
    {
        long counts = V2HeaderBytes + LongestCountsBytes(samples);
        long compressed = 8 + counts + (counts + 7) / 8 + 3 + 6;
        long base64 = 4 * ((compressed + 2) / 3);
        return checked((int)(base64 + 5 * ((base64 + 31) / 32)));
    }

    /// <summary>
    /// The most bytes the counts can take in the encoding: every bucket at least one byte (a run of empty ones takes less a
    /// bucket), and as many words of each longer length as <paramref name="samples"/> can pay for — a word of n bytes holds a
    /// count of at least 2^(7n-8) (ZigZag doubles it) — each length counted on its own, so the sum is an upper bound.
    /// </summary>
    internal static long LongestCountsBytes(long samples)
    {
        long buckets = LatencyHistogram.CountsArrayLength, bytes = buckets;
        for (int length = 2; length <= 9; length++)
        {
            bytes += Math.Min(buckets, samples >> (7 * length - 8));
        }
        return bytes;
    }

    // V2 cookies with the word-size nibble set (0x10), as HdrHistogram writes and checks them.
    private const int V2Cookie = 0x1c849313;
    private const int V2CompressedCookie = 0x1c849314;
    private const int V2HeaderBytes = 40;

    /// <summary>LEB128-64b9B of the ZigZag value: 7 bits a byte with a continuation bit, and a whole 9th byte.</summary>
    private static void WriteZigZag(ArrayBufferWriter<byte> to, long value)
    {
        ulong v = (ulong)((value << 1) ^ (value >> 63));
        Span<byte> word = to.GetSpan(9);
        int n = 0;
        while (n < 8 && v >= 0x80)
        {
            word[n++] = (byte)(v | 0x80);
            v >>= 7;
        }
        word[n++] = (byte)v;
        to.Advance(n);
    }

    /// <summary>
    /// Reads the V2 compressed form, in either base64 alphabet. The payload is inflated whole here: the library's decoder
    /// inflates it with one Stream.Read, which may return less than all of it once it spans several deflate blocks (a long,
    /// fast run's histogram), and then refuses it ("The buffer does not contain the indicated payload amount").
    /// </summary>
    public static HistogramBase Decode(string encoded)
    {
        byte[] compressed = FromText(encoded);
        if (Inflated(compressed) is not { } inflated)
        {
            return HistogramEncoding.DecodeFromCompressedByteBuffer(ByteBuffer.Allocate(compressed), 0);
        }
        if (!HasOurBounds(inflated.Span))
        {
            return HistogramEncoding.DecodeFromByteBuffer(ByteBuffer.Allocate(inflated.ToArray()), 0);
        }
        var histogram = Create();
        AddCounts(histogram, inflated.Span);
        return histogram;
    }

    /// <summary>
    /// Adds an encoded histogram's counts to <paramref name="target"/> in place. A histogram decoded on its own is a new
    /// 188 KB counts array on the large object heap, which the CLI's progress line made for every slice each second.
    /// </summary>
    public static void AddTo(LatencyHistogram target, string encoded)
    {
        byte[] compressed = FromText(encoded);
        if (Inflated(compressed) is { } inflated && HasOurBounds(inflated.Span))
        {
            AddCounts(target, inflated.Span);
            return;
        }
        target.Add(Decode(encoded));
    }

    /// <summary>Exact merge: counts are added bucket by bucket, so percentiles of the merge are percentiles of all samples.</summary>
    public static LatencyHistogram Merge(IEnumerable<string> encoded)
    {
        var merged = Create();
        foreach (var e in encoded)
        {
            AddTo(merged, e);
        }
        return merged;
    }

    // Standard base64 (results, summaries) has '+' or '/' where base64url (progress rows) has '-' or '_'; the url decoder
    // takes padding, so a string with none of the four reads the same either way.
    private static byte[] FromText(string encoded) =>
        encoded.AsSpan().ContainsAny('+', '/') ? Convert.FromBase64String(encoded) : Base64Url.DecodeFromChars(encoded);

    /// <summary>The V2 form's header and counts, inflated; null when <paramref name="compressed"/> is not the compressed V2 form.</summary>
    private static ReadOnlyMemory<byte>? Inflated(byte[] compressed)
    {
        if (compressed.Length < 8 || BinaryPrimitives.ReadInt32BigEndian(compressed) != V2CompressedCookie)
        {
            return null;
        }
        int length = Math.Min(BinaryPrimitives.ReadInt32BigEndian(compressed.AsSpan(4)), compressed.Length - 8);
        var inflated = new MemoryStream();
        using (var zlib = new ZLibStream(new MemoryStream(compressed, 8, length), CompressionMode.Decompress))
        {
            zlib.CopyTo(inflated);
        }
        return inflated.GetBuffer().AsMemory(0, (int)inflated.Length);
    }

    /// <summary>Whether an inflated V2 form was written by <see cref="Encode"/> for this program's bounds, so its counts index as ours.</summary>
    private static bool HasOurBounds(ReadOnlySpan<byte> inflated) =>
        inflated.Length >= V2HeaderBytes && BinaryPrimitives.ReadInt32BigEndian(inflated) == V2Cookie
        && BinaryPrimitives.ReadInt32BigEndian(inflated[8..]) == 0
        && BinaryPrimitives.ReadInt32BigEndian(inflated[12..]) == SignificantDigits
        && BinaryPrimitives.ReadInt64BigEndian(inflated[16..]) == 1
        && BinaryPrimitives.ReadInt64BigEndian(inflated[24..]) == HighestTrackableMicros;

    /// <summary>The counts as <see cref="Encode"/> writes them: a ZigZag word per bucket, a run of empty buckets as its negated length.</summary>
    private static void AddCounts(LatencyHistogram target, ReadOnlySpan<byte> inflated)
    {
        var counts = inflated.Slice(V2HeaderBytes, Math.Min(BinaryPrimitives.ReadInt32BigEndian(inflated[4..]), inflated.Length - V2HeaderBytes));
        for (int at = 0, index = 0; at < counts.Length;)
        {
            long count = ReadZigZag(counts, ref at);
            if (count < 0)
            {
                index += checked((int)-count);
                continue;
            }
            if (count > 0)
            {
                target.AddCountAt(index, count);
            }
            index++;
        }
    }

    /// <summary>LEB128-64b9B of a ZigZag value, as <see cref="WriteZigZag"/> writes it.</summary>
    private static long ReadZigZag(ReadOnlySpan<byte> from, ref int at)
    {
        ulong v = 0;
        for (int shift = 0; shift < 56; shift += 7)
        {
            byte b = from[at++];
            v |= (ulong)(b & 0x7F) << shift;
            if (b < 0x80)
            {
                return (long)(v >> 1) ^ -(long)(v & 1);
            }
        }
        v |= (ulong)from[at++] << 56;
        return (long)(v >> 1) ^ -(long)(v & 1);
    }
}
