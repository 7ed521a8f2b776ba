using System.Buffers.Binary;
using System.Buffers.Text;
using Azure.Data.Tables;

namespace StorageBench.Engine.Workloads.TableRead;

/// <summary>
/// What tableRead seeds, as a function of the entity's number n alone, so a read is checked without storing what was
/// written: partition p holds a contiguous run of numbers, entity n has RowKey "seed-{n:D9}", the Int64 property
/// <see cref="SequenceProperty"/> = 2^31 + n (above Int32's range: a filter on it needs the OData <c>L</c> literal),
/// and binary payload properties D00, D01, … (at most 64 KiB each, as <see cref="EntityPayload"/> splits them) whose
/// first 9 bytes are n (8 bytes, little-endian) and the property's index, and whose rest is a fixed pseudo-random
/// pattern per property. Another entity's payload, a stale one or a corrupted one differs in its head or its tail.
/// </summary>
public sealed class SeededEntities
{
    /// <summary>The Int64 property queries filter on (<see cref="ITableReads.QueryFilter"/> writes the name out).</summary>
    public const string SequenceProperty = "Sequence";
    public const long SequenceBase = 1L << 31;
    public const string RowKeyPrefix = "seed-";

    /// <summary>Bytes at the start of each payload property that carry the entity's number and the property's index (a multiple of 3: base64 of the rest is fixed).</summary>
    public const int HeadBytes = 9;

    private readonly long _entityCount;
    private readonly int _partitionCount;
    private readonly int[] _sizes;
    private readonly byte[][] _tails;
    private readonly byte[][] _tailsBase64;

    public SeededEntities(long entityCount, int partitionCount, int entitySizeBytes)
    {
        _entityCount = entityCount;
        _partitionCount = partitionCount;
        int count = (entitySizeBytes + ServiceLimits.MaxBinaryPropertyBytes - 1) / ServiceLimits.MaxBinaryPropertyBytes;
        _sizes = [.. Enumerable.Range(0, count).Select(i => Math.Min(ServiceLimits.MaxBinaryPropertyBytes, entitySizeBytes - i * ServiceLimits.MaxBinaryPropertyBytes))];
        _tails = [.. _sizes.Select((size, i) => Pattern(i, Math.Max(0, size - HeadBytes)))];
        _tailsBase64 = [.. _tails.Select(t => System.Text.Encoding.ASCII.GetBytes(Convert.ToBase64String(t)))];
    }

    public SeededEntities(TableReadSpec spec) : this(spec.EntityCount, spec.PartitionCount, spec.EntitySizeBytes)
    {
    }

    /// <summary>Payload properties per entity (D00, D01, …).</summary>
    public int Properties => _sizes.Length;

    /// <summary>Bytes of payload property <paramref name="index"/>.</summary>
    public int SizeOf(int index) => _sizes[index];

    public static string PropertyName(int index) => $"D{index:D2}";

    public static string RowKey(long n) => $"{RowKeyPrefix}{n:D9}";

    public static long Sequence(long n) => SequenceBase + n;

    /// <summary>The first number partition <paramref name="partition"/> holds, and how many it holds (Planner.Share's split).</summary>
    public (long First, long Count) RangeOf(int partition)
    {
        long per = _entityCount / _partitionCount, rest = _entityCount % _partitionCount;
        return (partition * per + Math.Min(partition, rest), Planner.Share(_entityCount, partition, _partitionCount));
    }

    /// <summary>Entity n as the SDK writes it.</summary>
    public TableEntity NewEntity(long n, int partition)
    {
        var entity = new TableEntity(Planner.PartitionKey(partition), RowKey(n)) { [SequenceProperty] = Sequence(n) };
        for (int i = 0; i < _sizes.Length; i++)
        {
            var value = new byte[_sizes[i]];
            WritePayload(n, i, value);
            entity[PropertyName(i)] = value;
        }
        return entity;
    }

    /// <summary>Property <paramref name="index"/>'s bytes of entity n.</summary>
    public void WritePayload(long n, int index, Span<byte> destination)
    {
        Span<byte> head = stackalloc byte[HeadBytes];
        Head(n, index, head);
        int h = Math.Min(HeadBytes, _sizes[index]);
        head[..h].CopyTo(destination);
        _tails[index].CopyTo(destination[h..]);
    }

    /// <summary>
    /// Whether <paramref name="entity"/> is exactly entity n of partition <paramref name="partition"/> as seeded: keys,
    /// Sequence (an Int64, not an Int32 or a string), and every payload property's bytes.
    /// </summary>
    public bool Matches(TableEntity entity, long n, int partition)
    {
        if (entity.PartitionKey != Planner.PartitionKey(partition) || entity.RowKey != RowKey(n)
            || !entity.TryGetValue(SequenceProperty, out var sequence) || sequence is not long s || s != Sequence(n))
        {
            return false;
        }
        int payloads = 0;
        foreach (var (name, value) in entity)
        {
            if (name.Length == 3 && name[0] == 'D' && int.TryParse(name.AsSpan(1), out int index))
            {
                if (index >= _sizes.Length || value is not BinaryData and not byte[])
                {
                    return false;
                }
                ReadOnlySpan<byte> bytes = value is byte[] b ? b : ((BinaryData)value).ToMemory().Span;
                if (!PayloadMatches(n, index, bytes))
                {
                    return false;
                }
                payloads++;
            }
        }
        return payloads == _sizes.Length;
    }

    public bool PayloadMatches(long n, int index, ReadOnlySpan<byte> bytes)
    {
        if (bytes.Length != _sizes[index])
        {
            return false;
        }
        Span<byte> head = stackalloc byte[HeadBytes];
        Head(n, index, head);
        int h = Math.Min(HeadBytes, bytes.Length);
        return bytes[..h].SequenceEqual(head[..h]) && bytes[h..].SequenceEqual(_tails[index]);
    }

    /// <summary>The same check on the property's base64 text as the service's JSON carries it (the lean driver compares text, decoding nothing).</summary>
    public bool PayloadBase64Matches(long n, int index, ReadOnlySpan<byte> base64)
    {
        if (_sizes[index] < HeadBytes)
        {
            Span<byte> whole = stackalloc byte[HeadBytes];
            Span<byte> text = stackalloc byte[Base64.GetMaxEncodedToUtf8Length(HeadBytes)];
            Head(n, index, whole);
            Base64.EncodeToUtf8(whole[.._sizes[index]], text, out _, out int written);
            return base64.SequenceEqual(text[..written]);
        }
        Span<byte> head = stackalloc byte[HeadBytes];
        Span<byte> headText = stackalloc byte[HeadBytes / 3 * 4];
        Head(n, index, head);
        Base64.EncodeToUtf8(head, headText, out _, out _);
        return base64.Length == headText.Length + _tailsBase64[index].Length
            && base64[..headText.Length].SequenceEqual(headText) && base64[headText.Length..].SequenceEqual(_tailsBase64[index]);
    }

    private static void Head(long n, int index, Span<byte> head)
    {
        BinaryPrimitives.WriteInt64LittleEndian(head, n);
        head[8] = (byte)index;
    }

    /// <summary>A fixed pseudo-random pattern per property (xorshift64*, seeded by the index): the same in every process and .NET version.</summary>
    private static byte[] Pattern(int index, int length)
    {
        var bytes = new byte[length];
        ulong x = 0x9E3779B97F4A7C15UL ^ (ulong)(index + 1);
        for (int i = 0; i < length; i++)
        {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            bytes[i] = (byte)((x * 0x2545F4914F6CDD1DUL) >> 56);
        }
        return bytes;
    }
}
