using System.Buffers;
using System.Buffers.Text;
using StorageBench.Engine.Workloads.TableRead;

namespace StorageBench.Benchmarks;

/// <summary>The floor's table reads: the entities tableRead seeded, written as the service returns them.</summary>
public sealed partial class FloorSink
{
    /// <summary>
    /// A table read's answer to the decoded target "/account/table(PartitionKey='…',RowKey='…')" (Get Entity) or
    /// "/account/table()?$filter=PartitionKey eq '…' and Sequence ge …L and Sequence lt …L&amp;$top=…[&amp;NextRowKey=…]" (Query
    /// Entities): the status line and continuation headers into <paramref name="head"/>, the JSON into <paramref name="body"/>.
    /// False for a point read of a key tableRead never seeds (storage's 404).
    /// </summary>
    private bool TableRead(ReadOnlySpan<byte> target, Writer body, byte[] scratch, Writer head)
    {
        head.Reset();
        int query = target.IndexOf((byte)'?');
        var path = query < 0 ? target : target[..query];
        var args = query < 0 ? default : target[(query + 1)..];
        int open = path.IndexOf((byte)'(');
        var table = path[(path[..open].LastIndexOf((byte)'/') + 1)..open];
        int digits = table.Length;
        while (digits > 0 && char.IsAsciiDigit((char)table[digits - 1]))
        {
            digits--;
        }
        int size = digits < table.Length && Utf8Parser.TryParse(table[digits..], out int parsed, out _) ? parsed : 0;
        var seeded = _seeded.GetOrAdd(size, s => new SeededEntities(1, 1, s));
        var keys = path[(open + 1)..^1];
        body.Put("{\"odata.metadata\":\""u8).Put(Address.OriginalString).Put("devstoreaccount1/$metadata#"u8).Put(table);
        if (keys.Length > 0)
        {
            var pk = Between(keys, "PartitionKey='"u8, "'"u8);
            var rk = Between(keys, "RowKey='"u8, "'"u8);
            if (!rk.StartsWith(SeedPrefix) || !Utf8Parser.TryParse(rk[SeededEntities.RowKeyPrefix.Length..], out long n, out _))
            {
                return false;
            }
            head.Put("HTTP/1.1 200 OK\r\n"u8);
            body.Put("/@Element\","u8);
            Entity(body, seeded, pk, n, scratch);
            body.Put("}"u8);
            return true;
        }
        var filter = Between(args, "$filter="u8, "&"u8);
        var partition = Between(filter, "PartitionKey eq '"u8, "'"u8);
        _ = Utf8Parser.TryParse(Between(filter, "Sequence ge "u8, "L"u8), out long lo, out _);
        _ = Utf8Parser.TryParse(Between(filter, "Sequence lt "u8, "L"u8), out long hi, out _);
        lo -= SeededEntities.SequenceBase;
        hi -= SeededEntities.SequenceBase;
        long from = lo;
        if (Between(args, "NextRowKey="u8, "&"u8) is { Length: > 0 } next && next.StartsWith(SeedPrefix))
        {
            _ = Utf8Parser.TryParse(next[SeededEntities.RowKeyPrefix.Length..], out from, out _);
        }
        long end = Math.Min(hi, from + (Utf8Parser.TryParse(Between(args, "$top="u8, "&"u8), out int top, out _) ? top : 1000));
        head.Put("HTTP/1.1 200 OK\r\n"u8);
        if (end < hi)
        {
            head.Put("x-ms-continuation-NextPartitionKey: 1!8!"u8).Put(partition).Put("\r\nx-ms-continuation-NextRowKey: "u8);
            RowKey(head, end);
            head.Put("\r\n"u8);
        }
        body.Put("\",\"value\":["u8);
        for (long n = from; n < end; n++)
        {
            body.Put(n == from ? "{"u8 : ",{"u8);
            Entity(body, seeded, partition, n, scratch);
            body.Put("}"u8);
        }
        body.Put("]}"u8);
        return true;
    }

    /// <summary>Entity n's properties as the service returns them (minimal metadata), as tableRead seeded it.</summary>
    private static void Entity(Writer w, SeededEntities seeded, ReadOnlySpan<byte> partitionKey, long n, byte[] scratch)
    {
        w.Put("\"odata.etag\":\"W/\\\"datetime'2026-01-01T00%3A00%3A00.0000000Z'\\\"\",\"PartitionKey\":\""u8).Put(partitionKey).Put("\",\"RowKey\":\""u8);
        RowKey(w, n);
        w.Put("\",\"Timestamp@odata.type\":\"Edm.DateTime\",\"Timestamp\":\"2026-01-01T00:00:00.0000000Z\",\"Sequence@odata.type\":\"Edm.Int64\",\"Sequence\":\""u8)
            .Put(SeededEntities.Sequence(n)).Put("\""u8);
        for (int i = 0; i < seeded.Properties; i++)
        {
            var payload = scratch.AsSpan(0, seeded.SizeOf(i));
            seeded.WritePayload(n, i, payload);
            w.Put(",\"D"u8).Put(i / 10).Put(i % 10).Put("@odata.type\":\"Edm.Binary\",\"D"u8).Put(i / 10).Put(i % 10).Put("\":\""u8).Base64(payload).Put("\""u8);
        }
    }

    private static void RowKey(Writer w, long n) => w.Put(SeededEntities.RowKeyPrefix).Put(n, new StandardFormat('D', 9));

    /// <summary>What follows <paramref name="after"/> up to <paramref name="until"/> (or the end); empty when <paramref name="after"/> is not there.</summary>
    private static ReadOnlySpan<byte> Between(ReadOnlySpan<byte> text, ReadOnlySpan<byte> after, ReadOnlySpan<byte> until)
    {
        int at = text.IndexOf(after);
        if (at < 0)
        {
            return default;
        }
        var rest = text[(at + after.Length)..];
        int end = rest.IndexOf(until);
        return end < 0 ? rest : rest[..end];
    }
}
