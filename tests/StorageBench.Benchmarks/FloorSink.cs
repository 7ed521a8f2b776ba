using System.Buffers;
using System.Buffers.Text;
using System.Collections.Concurrent;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using StorageBench.Engine.Workloads;

namespace StorageBench.Benchmarks;

/// <summary>
/// The floor the benchmarks measure the drivers against: a fake of Azure Storage on a raw socket that
/// cannot be slower than the driver. One thread per connection reads into one reused buffer (the body of
/// a 4 MiB Put Block is received and dropped, never copied or kept), parses the HTTP/1.1 head in place,
/// and answers what storage answers — 202 with one "204 No Content" part per operation for a table
/// <c>$batch</c>; 204 with an ETag for a single insert; 201 with ETag, Last-Modified and
/// x-ms-request-server-encrypted for Put Block / Put Block List, a page blob's create and Put Page; 201 for a
/// Put Blob, whose length it keeps (by a hash of the path) so a Get Blob of it answers that many zeros (200, or 206
/// for an x-ms-range); a table read (Get Entity, Query Entities) with the entities tableRead seeded
/// (<see cref="SeededEntities"/>: the payload size is the table name's trailing digits, see <see cref="ReadTableName"/>),
/// a query page of at most $top with its continuation headers; 202 for a delete; 404 otherwise — with
/// x-ms-request-id, x-ms-version and x-ms-client-request-id echoed, so both drivers parse a real answer.
/// Nothing is allocated per request: the answers are written into the connection's own buffer, a batch's
/// answer body is built once per operation count, a read's body is written into the connection's own growing buffer. Kestrel's <see cref="FloorServer"/> is still the wire
/// test's capturing server; it copies every body, which made it the bottleneck of the blob figures.
/// </summary>
public sealed class FloorSink : IDisposable
{
    private const string DevKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
    private const string TableETag = "W/\"datetime'2026-01-01T00%3A00%3A00.0000000Z'\"";
    // 1 MiB reads: fewer receive calls than 64 KiB ones (the floor's CPU per MB fell ~10 % at load 5); the kernel's buffers stay auto-tuned.
    private const int BufferSize = 1 << 20;
    private readonly Socket _listener;
    private readonly ConcurrentDictionary<int, byte[]> _batchBodies = new();
    private readonly ConcurrentDictionary<ulong, long> _blobLengths = new();
    private readonly ConcurrentDictionary<int, SeededEntities> _seeded = new();
    private static readonly byte[] Zeros = new byte[1 << 20];
    private static readonly byte[] SeedPrefix = Encoding.ASCII.GetBytes(SeededEntities.RowKeyPrefix);
    private readonly ConcurrentBag<Socket> _connections = [];
    private volatile bool _stopped;

    private FloorSink(Socket listener)
    {
        _listener = listener;
        Address = new Uri($"http://127.0.0.1:{((IPEndPoint)listener.LocalEndPoint!).Port}/");
        new Thread(AcceptLoop) { IsBackground = true, Name = "floor-accept" }.Start();
    }

    public Uri Address { get; }

    /// <summary>A connection string addressing this sink as the development account (the well-known Azurite key).</summary>
    public string ConnectionString =>
        $"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={DevKey};TableEndpoint={Address}devstoreaccount1;BlobEndpoint={Address}devstoreaccount1;";

    /// <summary>The sink's address in a <see cref="ConnectionString"/>.</summary>
    public static Uri AddressIn(string connectionString) =>
        new(new Uri(connectionString.Split(';').Single(p => p.StartsWith("BlobEndpoint=", StringComparison.Ordinal))["BlobEndpoint=".Length..]).GetLeftPart(UriPartial.Authority) + "/");

    /// <summary>The table a floor tableRead case reads: the sink answers its entities with payloads of <paramref name="entitySizeBytes"/>.</summary>
    public static string ReadTableName(int entitySizeBytes) => $"floorread{entitySizeBytes}";

    public static FloorSink Start(int port = 0)
    {
        var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, port));
        listener.Listen(512);
        return new FloorSink(listener);
    }

    private void AcceptLoop()
    {
        while (!_stopped)
        {
            Socket connection;
            try
            {
                connection = _listener.Accept();
            }
            catch (SocketException) when (_stopped)
            {
                return;
            }
            catch (ObjectDisposedException)
            {
                return;
            }
            connection.NoDelay = true;
            _connections.Add(connection);
            new Thread(() => Serve(connection)) { IsBackground = true, Name = "floor-connection" }.Start();
        }
    }

    /// <summary>Requests of one connection, until the client closes it.</summary>
    private void Serve(Socket socket)
    {
        byte[] buffer = new byte[BufferSize];
        var answer = new Writer(new byte[64 * 1024]);
        var readBody = new Writer(new byte[64 * 1024]);
        byte[] scratch = new byte[64 * 1024];
        // The echoed headers and a GET's decoded target, copied out of the head before the body's reads reuse the buffer.
        byte[] version = new byte[128], requestId = new byte[128], target = new byte[8 * 1024];
        int start = 0, end = 0;
        try
        {
            while (true)
            {
                // The head: read until a blank line ends it (heads are small; the buffer holds any of ours).
                int headEnd;
                while ((headEnd = buffer.AsSpan(start, end - start).IndexOf("\r\n\r\n"u8)) < 0)
                {
                    if (start > 0)
                    {
                        buffer.AsSpan(start, end - start).CopyTo(buffer);
                        (end, start) = (end - start, 0);
                    }
                    int read = socket.Receive(buffer.AsSpan(end));
                    if (read == 0)
                    {
                        return;
                    }
                    end += read;
                }
                var head = new Head(buffer.AsSpan(start, headEnd + 4), version, requestId, target);
                start += headEnd + 4;
                if (head.ExpectContinue)
                {
                    socket.Send("HTTP/1.1 100 Continue\r\n\r\n"u8);
                }
                // The body: a batch's is read whole (its operations are counted); any other is dropped as it arrives.
                long length = head.ContentLength;
                int operations = 0;
                if (head.IsBatch)
                {
                    if (length > buffer.Length)
                    {
                        throw new InvalidOperationException("batch body larger than the floor's buffer");
                    }
                    if (start + length > buffer.Length)
                    {
                        buffer.AsSpan(start, end - start).CopyTo(buffer);
                        (end, start) = (end - start, 0);
                    }
                    while (end - start < length)
                    {
                        int read = socket.Receive(buffer.AsSpan(end));
                        if (read == 0)
                        {
                            return;
                        }
                        end += read;
                    }
                    operations = Count(buffer.AsSpan(start, (int)length), "Content-Type: application/http"u8);
                    start += (int)length;
                }
                else
                {
                    long buffered = Math.Min(length, end - start);
                    start += (int)buffered;
                    length -= buffered;
                    while (length > 0)
                    {
                        int read = socket.Receive(buffer.AsSpan(0, (int)Math.Min(buffer.Length, length)));
                        if (read == 0)
                        {
                            return;
                        }
                        length -= read;
                    }
                    if (start == end)
                    {
                        start = end = 0;
                    }
                }
                if (head.Method == Method.Put && head.BlobType == BlobType.Block && !head.HasComp)
                {
                    _blobLengths[head.PathHash] = head.ContentLength;
                }
                long blobLength = 0;
                bool isBlobGet = head.Method == Method.Get && !head.HasComp && !head.IsTableRead && _blobLengths.TryGetValue(head.PathHash, out blobLength);
                ReadOnlySpan<byte> body = default;
                if (head.IsTableRead)
                {
                    readBody.Reset();
                    body = TableRead(target.AsSpan(0, head.TargetLength), readBody, scratch, answer) ? readBody.Written : default;
                }
                long first = 0, last = blobLength - 1;
                if (isBlobGet && head.HasRange)
                {
                    first = head.RangeFirst;
                    last = Math.Min(last, head.RangeLast);
                }
                Answer(head, version.AsSpan(0, head.VersionLength), requestId.AsSpan(0, head.RequestIdLength), operations, answer, head.IsTableRead ? body.Length : -1,
                    isBlobGet ? (first, last, blobLength) : null);
                if (head.IsTableRead && !body.IsEmpty)
                {
                    // The head is in the answer writer; the read's body goes after it.
                    answer.Put(body);
                }
                socket.Send(answer.Written);
                for (long left = isBlobGet ? last - first + 1 : 0; left > 0; left -= Zeros.Length)
                {
                    socket.Send(Zeros.AsSpan(0, (int)Math.Min(left, Zeros.Length)));
                }
            }
        }
        catch (SocketException)
        {
            // The client closed the connection.
        }
        catch (ObjectDisposedException)
        {
        }
        finally
        {
            socket.Dispose();
        }
    }

    /// <summary>Writes the answer to <paramref name="head"/> into <paramref name="w"/>.</summary>
    /// <param name="readBodyLength">A table read's body length (written after this head), or -1.</param>
    /// <param name="blob">A Get Blob's range and the blob's length (its zeros are sent after this head), or null.</param>
    private void Answer(Head head, ReadOnlySpan<byte> version, ReadOnlySpan<byte> requestId, int operations, Writer w, int readBodyLength, (long First, long Last, long Length)? blob)
    {
        ReadOnlySpan<byte> body = default;
        long contentLength = -1;
        if (head.IsTableRead)
        {
            if (readBodyLength > 0)
            {
                w.Put("Content-Type: application/json;odata=minimalmetadata;streaming=true;charset=utf-8\r\n"u8);
                contentLength = readBodyLength;
            }
            else
            {
                w.Reset();
                w.Put("HTTP/1.1 404 Not Found\r\nx-ms-error-code: ResourceNotFound\r\n"u8);
            }
        }
        else if (blob is { } b)
        {
            w.Reset();
            w.Put(head.HasRange ? "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes "u8 : "HTTP/1.1 200 OK\r\n"u8);
            if (head.HasRange)
            {
                w.Put(b.First).Put("-"u8).Put(b.Last).Put("/"u8).Put(b.Length).Put("\r\n"u8);
            }
            w.Put("Content-Type: application/octet-stream\r\nETag: \"0x8DD00000000000\"\r\nLast-Modified: Thu, 01 Jan 2026 00:00:00 GMT\r\nx-ms-blob-type: BlockBlob\r\nAccept-Ranges: bytes\r\n"u8);
            contentLength = b.Last - b.First + 1;
        }
        else
        {
            w.Reset();
        }
        if (head.IsTableRead || blob is not null)
        {
        }
        else if (head.IsBatch)
        {
            body = _batchBodies.GetOrAdd(operations, BatchBody);
            w.Put("HTTP/1.1 202 Accepted\r\nContent-Type: multipart/mixed; boundary=batchresponse_floor\r\n"u8);
        }
        else if (head.Method == Method.Post)
        {
            // A single insert sent with "Prefer: return-no-content".
            w.Put("HTTP/1.1 204 No Content\r\nETag: "u8).Put(TableETag).Put("\r\n"u8);
        }
        else if (head.Method == Method.Put && (head.IsBlockOrList || head.IsPage || (!head.HasComp && head.BlobType != BlobType.None)))
        {
            // Put Block, Put Block List, a page blob's create, Put Page, Put Blob.
            w.Put("HTTP/1.1 201 Created\r\nETag: \"0x8DD00000000000\"\r\nLast-Modified: Thu, 01 Jan 2026 00:00:00 GMT\r\nx-ms-request-server-encrypted: true\r\n"u8);
            if (head.IsPage)
            {
                w.Put("x-ms-blob-sequence-number: 0\r\n"u8);
            }
        }
        else if (head.Method == Method.Delete)
        {
            w.Put("HTTP/1.1 202 Accepted\r\n"u8);
        }
        else
        {
            w.Put("HTTP/1.1 404 Not Found\r\nx-ms-error-code: ResourceNotFound\r\n"u8);
        }
        w.Put("Server: StorageBench-floor\r\nx-ms-request-id: 00000000-0000-0000-0000-000000000000\r\nDate: "u8).Put(HttpDate.Now).Put("\r\n"u8);
        if (!version.IsEmpty)
        {
            w.Put("x-ms-version: "u8).Put(version).Put("\r\n"u8);
        }
        if (!requestId.IsEmpty)
        {
            w.Put("x-ms-client-request-id: "u8).Put(requestId).Put("\r\n"u8);
        }
        w.Put("Content-Length: "u8).Put(head.Method == Method.Head ? 0 : contentLength >= 0 ? contentLength : body.Length).Put("\r\n\r\n"u8);
        if (head.Method != Method.Head)
        {
            w.Put(body);
        }
    }

    /// <summary>The body Azurite and Azure answer a successful changeset with: one "204 No Content" part per operation, in order.</summary>
    private static byte[] BatchBody(int operations)
    {
        var sb = new StringBuilder();
        sb.Append("--batchresponse_floor\r\nContent-Type: multipart/mixed; boundary=changesetresponse_floor\r\n\r\n");
        for (int i = 1; i <= operations; i++)
        {
            sb.Append("--changesetresponse_floor\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n");
            sb.Append(CultureInfo.InvariantCulture, $"HTTP/1.1 204 No Content\r\nContent-ID: {i}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\nDataServiceVersion: 3.0;\r\nETag: {TableETag}\r\n\r\n");
        }
        sb.Append("--changesetresponse_floor--\r\n--batchresponse_floor--\r\n");
        return Encoding.ASCII.GetBytes(sb.ToString());
    }

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

    private static int Count(ReadOnlySpan<byte> haystack, ReadOnlySpan<byte> needle)
    {
        int count = 0;
        for (int at; (at = haystack.IndexOf(needle)) >= 0; haystack = haystack[(at + needle.Length)..])
        {
            count++;
        }
        return count;
    }

    public void Dispose()
    {
        _stopped = true;
        _listener.Dispose();
        foreach (var connection in _connections)
        {
            connection.Dispose();
        }
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
