using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace StorageBench.Benchmarks;

/// <summary>What a sender that does nothing but write the request bytes got through, and what it cost.</summary>
/// <param name="UserMicrosPerMB">This process's user CPU per MB sent; <paramref name="SystemMicrosPerMB"/> its kernel CPU (the socket copies).</param>
public sealed record Capacity(double MBPerSecond, double UserMicrosPerMB, double SystemMicrosPerMB, long Requests)
{
    public double MicrosPerMB => UserMicrosPerMB + SystemMicrosPerMB;
}

/// <summary>
/// The floor's own capacity: <c>connections</c> threads, each on its own keep-alive connection, write a
/// pre-built Put Block request (the lean driver's head, a 4 MiB body) with one blocking send, read the
/// answer, and go again — no HTTP stack, no allocation, no signing. What the floor takes from it is the
/// most any driver can get through it on this machine; its CPU per MB is what the kernel's loopback copy
/// alone costs a sender.
/// </summary>
public static class FloorCapacity
{
    public static Capacity Measure(Uri floor, int blockBytes, int connections, TimeSpan duration)
    {
        byte[] body = new byte[blockBytes];
        Random.Shared.NextBytes(body);
        string head =
            $"PUT /devstoreaccount1/capacity/blob?comp=block&blockid=YmxvY2stMDAwMDAw HTTP/1.1\r\nHost: {floor.Authority}\r\n" +
            "Accept: application/xml\r\nUser-Agent: StorageBench-floor-capacity\r\nx-ms-version: 2026-10-06\r\nx-ms-return-client-request-id: true\r\n" +
            "x-ms-client-request-id: 00000000-0000-0000-0000-000000000000\r\nx-ms-date: Thu, 01 Jan 2026 00:00:00 GMT\r\n" +
            "Authorization: SharedKey devstoreaccount1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n" +
            $"Content-Type: application/octet-stream\r\nContent-Length: {blockBytes}\r\n\r\n";
        byte[] request = [.. Encoding.ASCII.GetBytes(head), .. body];
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
            byte[] answer = new byte[4096];
            go.SignalAndWait();
            long sent = 0;
            while (stop.Elapsed < duration)
            {
                socket.Send(request);
                // The floor's answers carry no body: the head ends the answer.
                for (int got = 0; got < 4 || !answer.AsSpan(got - 4, 4).SequenceEqual("\r\n\r\n"u8);)
                {
                    int read = socket.Receive(answer.AsSpan(got));
                    got += read > 0 ? read : throw new InvalidOperationException("the floor closed the connection");
                }
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
        double mb = requests * (double)blockBytes / 1e6;
        return new Capacity(mb / seconds, (process.UserProcessorTime - user).TotalMicroseconds / mb, (process.PrivilegedProcessorTime - system).TotalMicroseconds / mb, requests);
    }
}
