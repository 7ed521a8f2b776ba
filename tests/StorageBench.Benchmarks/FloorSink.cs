using System.Buffers.Text;
using System.Collections.Concurrent;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace StorageBench.Benchmarks;

/// <summary>
/// The floor the benchmarks measure the drivers against: a fake of Azure Storage on a raw socket that
/// cannot be slower than the driver. One thread per connection reads into one reused buffer (the body of
/// a 4 MiB Put Block is received and dropped, never copied or kept), parses the HTTP/1.1 head in place,
/// and answers what storage answers — 202 with one "204 No Content" part per operation for a table
/// <c>$batch</c>; 204 with an ETag for a single insert; 201 with ETag, Last-Modified and
/// x-ms-request-server-encrypted for Put Block / Put Block List; 202 for a delete; 404 otherwise — with
/// x-ms-request-id, x-ms-version and x-ms-client-request-id echoed, so both drivers parse a real answer.
/// Nothing is allocated per request: the answers are written into the connection's own buffer, a batch's
/// answer body is built once per operation count. Kestrel's <see cref="FloorServer"/> is still the wire
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
        // The echoed headers, copied out of the head before the body's reads reuse the buffer.
        byte[] version = new byte[128], requestId = new byte[128];
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
                var head = new Head(buffer.AsSpan(start, headEnd + 4), version, requestId);
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
                Answer(head, version.AsSpan(0, head.VersionLength), requestId.AsSpan(0, head.RequestIdLength), operations, answer);
                socket.Send(answer.Written);
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
    private void Answer(Head head, ReadOnlySpan<byte> version, ReadOnlySpan<byte> requestId, int operations, Writer w)
    {
        w.Reset();
        ReadOnlySpan<byte> body = default;
        if (head.IsBatch)
        {
            body = _batchBodies.GetOrAdd(operations, BatchBody);
            w.Put("HTTP/1.1 202 Accepted\r\nContent-Type: multipart/mixed; boundary=batchresponse_floor\r\n"u8);
        }
        else if (head.Method == Method.Post)
        {
            // A single insert sent with "Prefer: return-no-content".
            w.Put("HTTP/1.1 204 No Content\r\nETag: "u8).Put(TableETag).Put("\r\n"u8);
        }
        else if (head.Method == Method.Put && head.IsBlockOrList)
        {
            w.Put("HTTP/1.1 201 Created\r\nETag: \"0x8DD00000000000\"\r\nLast-Modified: Thu, 01 Jan 2026 00:00:00 GMT\r\nx-ms-request-server-encrypted: true\r\n"u8);
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
        w.Put("Content-Length: "u8).Put(head.Method == Method.Head ? 0 : body.Length).Put("\r\n\r\n"u8);
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

    /// <summary>What the answer depends on, read from the request head in place; the echoed header values are copied into the given arrays.</summary>
    private readonly struct Head
    {
        public Head(ReadOnlySpan<byte> head, byte[] version, byte[] requestId)
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

        public long ContentLength { get; }

        public int VersionLength { get; }

        public int RequestIdLength { get; }

        public bool ExpectContinue { get; }

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
        private readonly byte[] _into = into;

        public int Length { get; private set; }

        public ReadOnlySpan<byte> Written => _into.AsSpan(0, Length);

        public void Reset() => Length = 0;

        public Writer Put(ReadOnlySpan<byte> bytes)
        {
            bytes.CopyTo(_into.AsSpan(Length));
            Length += bytes.Length;
            return this;
        }

        public Writer Put(string ascii)
        {
            Length += Encoding.ASCII.GetBytes(ascii, _into.AsSpan(Length));
            return this;
        }

        public Writer Put(int value)
        {
            Utf8Formatter.TryFormat(value, _into.AsSpan(Length), out int written);
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
