using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
using StorageBench.Engine.Workloads.TableRead;

namespace StorageBench.Benchmarks;

/// <summary>What a sender that does nothing but write the request bytes got through the floor, and what it cost it.</summary>
/// <param name="UserMicrosPerUnit">The sender's user CPU per unit; <paramref name="SystemMicrosPerUnit"/> its kernel CPU (the loopback socket copies).</param>
public sealed record Capacity(double UnitsPerSecond, double UserMicrosPerUnit, double SystemMicrosPerUnit, long Requests)
{
    public double MicrosPerUnit => UserMicrosPerUnit + SystemMicrosPerUnit;
}

/// <summary>
/// The floor's own capacity: as many threads as the case has requests in flight, each on its own
/// keep-alive connection, write the lean driver's own request bytes (captured from it on the wire test's
/// server) with one blocking send, read the answer, and go again — no HTTP stack, no allocation, no
/// signing. What the floor takes from it is the most any driver gets through the floor on this machine;
/// its CPU per unit is what the kernel's loopback copy alone costs a sender.
/// </summary>
public static class FloorCapacity
{
    /// <summary>One request of <paramref name="floorCase"/> as the lean driver sends it (head and body), and the units it carries.</summary>
    public static async Task<(byte[] Request, double Units)> RequestOfAsync(FloorCase floorCase)
    {
        await using var capture = await FloorServer.StartAsync(capture: true);
        if (floorCase.Spec.TableRead is { } read)
        {
            capture.Seeded = new SeededEntities(read);
        }
        // Enough entities that every partition gets a full batch.
        var spec = floorCase.With(Engine.Spec.ClientSettings.LeanDriver, floorCase.Spec.TableInsert is { } t ? 2L * t.BatchSize * t.PartitionCount : 1);
        await FloorBenchmark.RunAsync(Engine.Targets.StorageTarget.FromConnectionString(capture.ConnectionString), spec, settle: false);
        // The measured request: an EGT or insert (POST), a block, a Put Page, a table read (GET "…(…)"), a Get Blob of a seeded blob.
        Func<CapturedRequest, bool> measured = true switch
        {
            _ when spec.TableInsert is not null => r => r.Method == "POST",
            _ when spec.BlobUpload is not null => r => r.Query.Contains("comp=block&", StringComparison.Ordinal),
            _ when spec.PageBlobUpload is not null => r => r.Query.Contains("comp=page", StringComparison.Ordinal),
            // A point read of a seeded entity or a query page; not the priming probe (a key never seeded, which storage answers 404).
            _ when spec.TableRead is not null => r => r.Method == "GET" && (r.Path.Contains("RowKey='seed-", StringComparison.Ordinal) || r.Path.EndsWith("()", StringComparison.Ordinal)),
            _ => r => r.Method == "GET" && r.Path.Contains("/seed/", StringComparison.Ordinal) && (spec.BlobDownload!.RangeSizeBytes == 0 || r.Headers.ContainsKey("x-ms-range")),
        };
        var request = capture.Captured.Where(measured).MaxBy(r => r.Body.Length)
            ?? throw new InvalidOperationException($"floor case {floorCase.Key}: the lean driver sent none of the measured requests");
        var head = new StringBuilder($"{request.Method} {request.Path}{request.Query} HTTP/1.1\r\n");
        foreach (var (name, value) in request.Headers)
        {
            head.Append(name).Append(": ").Append(value).Append("\r\n");
        }
        head.Append("\r\n");
        double units = true switch
        {
            _ when spec.TableRead is { } r => r.Operation == TableReadSpec.Query ? Math.Min(r.QueryEntities, TableReadRoom.MaxPageEntities) : 1,
            _ when spec.BlobDownload is { } d => (d.RangeSizeBytes > 0 ? Math.Min(d.RangeSizeBytes, d.BlobSizeBytes) : d.BlobSizeBytes) / 1e6,
            _ when spec.TableInsert is null => request.Body.Length / 1e6,
            _ => request.Path.EndsWith("/$batch", StringComparison.Ordinal) ? Encoding.ASCII.GetString(request.Body).Split("Content-Type: application/http").Length - 1 : 1,
        };
        return ([.. Encoding.ASCII.GetBytes(head.ToString()), .. request.Body], units);
    }

    public static Capacity Measure(Uri floor, byte[] request, double unitsPerRequest, int connections, TimeSpan duration)
    {
        long requests = 0;
        var stop = Stopwatch.StartNew();
        var sockets = Enumerable.Range(0, connections).Select(_ =>
        {
            var s = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            s.Connect(new IPEndPoint(IPAddress.Loopback, floor.Port));
            return s;
        }).ToList();
        using var go = new Barrier(connections + 1);
        var threads = sockets.Select(socket => new Thread(() =>
        {
            byte[] answer = new byte[256 * 1024];
            go.SignalAndWait();
            long sent = 0;
            while (stop.Elapsed < duration)
            {
                socket.Send(request);
                ReadAnswer(socket, answer);
                sent++;
            }
            Interlocked.Add(ref requests, sent);
        }) { IsBackground = true }).ToList();
        threads.ForEach(t => t.Start());
        var process = Process.GetCurrentProcess();
        process.Refresh();
        var (user, system) = (process.UserProcessorTime, process.PrivilegedProcessorTime);
        go.SignalAndWait();
        stop.Restart();
        threads.ForEach(t => t.Join());
        double seconds = stop.Elapsed.TotalSeconds;
        process.Refresh();
        sockets.ForEach(s => s.Dispose());
        double units = requests * unitsPerRequest;
        return new Capacity(units / seconds, (process.UserProcessorTime - user).TotalMicroseconds / units, (process.PrivilegedProcessorTime - system).TotalMicroseconds / units, requests);
    }

    /// <summary>Reads one answer: its head, then Content-Length bytes of body (a batch's answer, a read's entities, a blob's bytes: dropped).</summary>
    private static void ReadAnswer(Socket socket, byte[] answer)
    {
        int got = 0, headEnd;
        while ((headEnd = answer.AsSpan(0, got).IndexOf("\r\n\r\n"u8)) < 0)
        {
            got += Receive(socket, answer.AsSpan(got));
        }
        var head = answer.AsSpan(0, headEnd);
        if (!head.StartsWith("HTTP/1.1 2"u8))
        {
            // The capacity is of answers the drivers count as successes, never of a fast error.
            throw new InvalidOperationException("the floor answered the raw sender's request with " + Encoding.ASCII.GetString(head[..head.IndexOf("\r\n"u8)]));
        }
        int at = head.IndexOf("Content-Length: "u8);
        long length = 0;
        if (at >= 0)
        {
            var value = head[(at + 16)..];
            int end = value.IndexOf("\r\n"u8);
            _ = System.Buffers.Text.Utf8Parser.TryParse(end < 0 ? value : value[..end], out length, out _);
        }
        for (long left = (long)headEnd + 4 + length - got; left > 0;)
        {
            left -= Receive(socket, answer.AsSpan(0, (int)Math.Min(left, answer.Length)));
        }
    }

    private static int Receive(Socket socket, Span<byte> into)
    {
        int read = socket.Receive(into);
        return read > 0 ? read : throw new InvalidOperationException("the floor closed the connection");
    }
}
