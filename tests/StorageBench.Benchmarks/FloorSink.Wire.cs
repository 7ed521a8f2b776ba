using System.Buffers;
using System.Buffers.Text;
using System.Globalization;
using System.Text;

namespace StorageBench.Benchmarks;

/// <summary>The floor's HTTP/1.1 parts: the request head read in place, the answer writer, the Date header.</summary>
public sealed partial class FloorSink
{
    private static int Count(ReadOnlySpan<byte> haystack, ReadOnlySpan<byte> needle)
    {
        int count = 0;
        for (int at; (at = haystack.IndexOf(needle)) >= 0; haystack = haystack[(at + needle.Length)..])
        {
            count++;
        }
        return count;
    }

    private enum Method { Other, Get, Head, Put, Post, Delete }

    private enum BlobType { None, Block, Page, Other }

    /// <summary>What the answer depends on, read from the request head in place; the echoed header values are copied into the given arrays.</summary>
    private readonly struct Head
    {
        public Head(ReadOnlySpan<byte> head, byte[] version, byte[] requestId, byte[] decodedTarget)
        {
            int lineEnd = head.IndexOf("\r\n"u8);
            var requestLine = head[..lineEnd];
            int space = requestLine.IndexOf((byte)' ');
            var method = requestLine[..space];
            Method = method.SequenceEqual("PUT"u8) ? Method.Put : method.SequenceEqual("POST"u8) ? Method.Post : method.SequenceEqual("DELETE"u8) ? Method.Delete
                : method.SequenceEqual("GET"u8) ? Method.Get : method.SequenceEqual("HEAD"u8) ? Method.Head : Method.Other;
            var target = requestLine[(space + 1)..];
            target = target[..target.IndexOf((byte)' ')];
            int query = target.IndexOf((byte)'?');
            var path = query < 0 ? target : target[..query];
            IsBatch = Method == Method.Post && path.EndsWith("/$batch"u8);
            IsBlockOrList = query >= 0 && (target[query..].IndexOf("comp=block"u8) >= 0);
            IsPage = query >= 0 && target[query..].IndexOf("comp=page"u8) >= 0;
            HasComp = query >= 0 && target[query..].IndexOf("comp="u8) >= 0;
            // FNV-1a of the path: which blob a Put Blob wrote and a Get Blob reads, without a string.
            ulong hash = 14695981039346656037UL;
            foreach (byte b in path)
            {
                hash = (hash ^ b) * 1099511628211UL;
            }
            PathHash = hash;
            IsTableRead = Method == Method.Get && path.IndexOf((byte)'(') >= 0;
            IsTableList = Method == Method.Get && path.EndsWith("/Tables"u8);
            IsTableDelete = Method == Method.Delete && path.IndexOf("/Tables("u8) >= 0;
            if (IsTableRead)
            {
                TargetLength = Decode(target, decodedTarget);
            }
            for (var rest = head[(lineEnd + 2)..]; rest.Length > 2; )
            {
                int end = rest.IndexOf("\r\n"u8);
                var line = rest[..end];
                rest = rest[(end + 2)..];
                int colon = line.IndexOf((byte)':');
                if (colon <= 0)
                {
                    continue;
                }
                var name = line[..colon];
                var value = line[(colon + 1)..].Trim((byte)' ');
                if (Ascii.EqualsIgnoreCase(name, "Content-Length"u8))
                {
                    ContentLength = Utf8Parser.TryParse(value, out long length, out _) ? length : throw new InvalidOperationException("a Content-Length that is not a number");
                }
                else if (Ascii.EqualsIgnoreCase(name, "x-ms-version"u8))
                {
                    VersionLength = Copy(value, version);
                }
                else if (Ascii.EqualsIgnoreCase(name, "x-ms-client-request-id"u8))
                {
                    RequestIdLength = Copy(value, requestId);
                }
                else if (Ascii.EqualsIgnoreCase(name, "x-ms-blob-type"u8))
                {
                    BlobType = value.SequenceEqual("PageBlob"u8) ? BlobType.Page : value.SequenceEqual("BlockBlob"u8) ? BlobType.Block : BlobType.Other;
                }
                else if (Ascii.EqualsIgnoreCase(name, "x-ms-range"u8) || Ascii.EqualsIgnoreCase(name, "Range"u8))
                {
                    // "bytes=first-last"
                    var ends = value["bytes="u8.Length..];
                    int dash = ends.IndexOf((byte)'-');
                    HasRange = Utf8Parser.TryParse(ends[..dash], out long first, out _) & Utf8Parser.TryParse(ends[(dash + 1)..], out long last, out _);
                    (RangeFirst, RangeLast) = (first, last);
                }
                else if (Ascii.EqualsIgnoreCase(name, "Expect"u8))
                {
                    ExpectContinue = Ascii.EqualsIgnoreCase(value, "100-continue"u8);
                }
                else if (Ascii.EqualsIgnoreCase(name, "Transfer-Encoding"u8))
                {
                    throw new NotSupportedException("the floor reads bodies with a Content-Length only (neither driver sends chunked)");
                }
            }
        }

        public Method Method { get; }

        public bool IsBatch { get; }

        public bool IsBlockOrList { get; }

        public bool IsPage { get; }

        public bool HasComp { get; }

        public ulong PathHash { get; }

        public bool IsTableRead { get; }

        /// <summary>Query Tables: what a run's preflight asks before anything starts (the soak's CLI runs on the floor).</summary>
        public bool IsTableList { get; }

        /// <summary>Delete Table, which storage answers with 204 (a blob's delete, 202).</summary>
        public bool IsTableDelete { get; }

        /// <summary>A table read's request target, percent-decoded, in the array given.</summary>
        public int TargetLength { get; }

        public BlobType BlobType { get; }

        public bool HasRange { get; }

        public long RangeFirst { get; }

        public long RangeLast { get; }

        public long ContentLength { get; }

        public int VersionLength { get; }

        public int RequestIdLength { get; }

        public bool ExpectContinue { get; }

        private static int Decode(ReadOnlySpan<byte> encoded, byte[] into)
        {
            int length = 0;
            for (int i = 0; i < encoded.Length && length < into.Length; i++)
            {
                if (encoded[i] == '%' && i + 2 < encoded.Length && byte.TryParse(encoded.Slice(i + 1, 2), NumberStyles.HexNumber, CultureInfo.InvariantCulture, out byte b))
                {
                    into[length++] = b;
                    i += 2;
                }
                else
                {
                    into[length++] = encoded[i] == '+' ? (byte)' ' : encoded[i];
                }
            }
            return length;
        }

        private static int Copy(ReadOnlySpan<byte> value, byte[] into)
        {
            int length = Math.Min(value.Length, into.Length);
            value[..length].CopyTo(into);
            return length;
        }
    }

    /// <summary>Appends to a fixed buffer, one per connection, reused answer after answer.</summary>
    private sealed class Writer(byte[] into)
    {
        private byte[] _into = into;

        public int Length { get; private set; }

        public ReadOnlySpan<byte> Written => _into.AsSpan(0, Length);

        public void Reset() => Length = 0;

        /// <summary>Grows the buffer (rarely: it stays the connection's) so <paramref name="more"/> bytes fit.</summary>
        private Span<byte> Room(int more)
        {
            if (Length + more > _into.Length)
            {
                Array.Resize(ref _into, Math.Max(2 * _into.Length, Length + more));
            }
            return _into.AsSpan(Length);
        }

        public Writer Put(ReadOnlySpan<byte> bytes)
        {
            bytes.CopyTo(Room(bytes.Length));
            Length += bytes.Length;
            return this;
        }

        public Writer Put(string ascii)
        {
            Length += Encoding.ASCII.GetBytes(ascii, Room(ascii.Length));
            return this;
        }

        public Writer Put(long value, StandardFormat format = default)
        {
            Utf8Formatter.TryFormat(value, Room(24), out int written, format);
            Length += written;
            return this;
        }

        public Writer Base64(ReadOnlySpan<byte> bytes)
        {
            System.Buffers.Text.Base64.EncodeToUtf8(bytes, Room(System.Buffers.Text.Base64.GetMaxEncodedToUtf8Length(bytes.Length)), out _, out int written);
            Length += written;
            return this;
        }
    }

    /// <summary>The Date header, formatted once a second.</summary>
    private static class HttpDate
    {
        private static long s_second;
        private static byte[] s_value = [];

        public static ReadOnlySpan<byte> Now
        {
            get
            {
                long second = Environment.TickCount64 / 1000;
                if (second != Volatile.Read(ref s_second) || s_value.Length == 0)
                {
                    s_value = Encoding.ASCII.GetBytes(DateTime.UtcNow.ToString("r", CultureInfo.InvariantCulture));
                    Volatile.Write(ref s_second, second);
                }
                return s_value;
            }
        }
    }
}
