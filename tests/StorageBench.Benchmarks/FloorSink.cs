using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using System.Text;
using StorageBench.Engine.Workloads.TableRead;

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
public sealed partial class FloorSink : IDisposable
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

    public void Dispose()
    {
        _stopped = true;
        _listener.Dispose();
        foreach (var connection in _connections)
        {
            connection.Dispose();
        }
    }
}
