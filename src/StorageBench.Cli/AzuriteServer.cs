using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace StorageBench.Cli;

/// <summary>
/// Azurite from the repo's pinned npm package, on loopback only: in-memory, telemetry off, API
/// version check off, on free ports chosen at start. Disposing stops it and everything it stored.
/// </summary>
public sealed class AzuriteServer : IAsyncDisposable
{
    /// <summary>The well-known development account key: the only key that may appear in the repo.</summary>
    public const string DevAccountKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    private readonly Process _process;
    private readonly StringBuilder _log;

    private AzuriteServer(Process process, StringBuilder log, int blobPort, int queuePort, int tablePort)
    {
        _process = process;
        _log = log;
        BlobPort = blobPort;
        QueuePort = queuePort;
        TablePort = tablePort;
    }

    public int BlobPort { get; }
    public int QueuePort { get; }
    public int TablePort { get; }

    public string ConnectionString =>
        $"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={DevAccountKey};" +
        $"BlobEndpoint=http://127.0.0.1:{BlobPort}/devstoreaccount1;QueueEndpoint=http://127.0.0.1:{QueuePort}/devstoreaccount1;" +
        $"TableEndpoint=http://127.0.0.1:{TablePort}/devstoreaccount1;";

    public static async Task<AzuriteServer> StartAsync(CancellationToken ct = default)
    {
        string azurite = FindExecutable();
        Exception? last = null;
        // A port picked free can be taken before Azurite binds it; try a fresh set a few times.
        for (int attempt = 0; attempt < 3; attempt++)
        {
            int[] ports = FreePorts(3);
            var log = new StringBuilder();
            var psi = new ProcessStartInfo(azurite)
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
                WorkingDirectory = Path.GetTempPath(),
            };
            foreach (var arg in new[]
            {
                "--inMemoryPersistence", "--disableTelemetry", "--skipApiVersionCheck", "--loose", "--silent",
                "--blobHost", "127.0.0.1", "--blobPort", ports[0].ToString(),
                "--queueHost", "127.0.0.1", "--queuePort", ports[1].ToString(),
                "--tableHost", "127.0.0.1", "--tablePort", ports[2].ToString(),
            })
            {
                psi.ArgumentList.Add(arg);
            }
            var process = Process.Start(psi) ?? throw new InvalidOperationException($"could not start {azurite}");
            process.OutputDataReceived += (_, e) => { lock (log) { log.AppendLine(e.Data); } };
            process.ErrorDataReceived += (_, e) => { lock (log) { log.AppendLine(e.Data); } };
            process.BeginOutputReadLine();
            process.BeginErrorReadLine();
            var server = new AzuriteServer(process, log, ports[0], ports[1], ports[2]);
            try
            {
                await server.WaitUntilListeningAsync(TimeSpan.FromSeconds(60), ct).ConfigureAwait(false);
                return server;
            }
            catch (Exception ex)
            {
                // Never leave a half-started Azurite behind, also when the start was canceled.
                await server.DisposeAsync().ConfigureAwait(false);
                if (ex is OperationCanceledException)
                {
                    throw;
                }
                last = ex;
            }
        }
        throw new InvalidOperationException("Azurite did not start: " + last?.Message, last);
    }

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync().ConfigureAwait(false);
        }
        _process.Dispose();
    }

    /// <summary>node_modules/.bin/azurite in this directory or an ancestor (of the working directory, then of the program).</summary>
    public static string FindExecutable()
    {
        foreach (var start in new[] { Environment.CurrentDirectory, AppContext.BaseDirectory })
        {
            for (var dir = new DirectoryInfo(start); dir is not null; dir = dir.Parent)
            {
                string candidate = Path.Combine(dir.FullName, "node_modules", ".bin", "azurite");
                if (File.Exists(candidate))
                {
                    return candidate;
                }
            }
        }
        throw new FileNotFoundException("node_modules/.bin/azurite not found: run `npm ci` at the repository root (scripts/bench.sh and scripts/test.sh do).");
    }

    private async Task WaitUntilListeningAsync(TimeSpan limit, CancellationToken ct)
    {
        var deadline = Stopwatch.StartNew();
        foreach (int port in new[] { BlobPort, QueuePort, TablePort })
        {
            while (true)
            {
                if (_process.HasExited)
                {
                    throw new InvalidOperationException($"Azurite exited with code {_process.ExitCode}: {Log()}");
                }
                try
                {
                    using var client = new TcpClient();
                    await client.ConnectAsync(IPAddress.Loopback, port, ct).ConfigureAwait(false);
                    break;
                }
                catch (SocketException) when (deadline.Elapsed < limit)
                {
                    await Task.Delay(100, ct).ConfigureAwait(false);
                }
            }
        }
    }

    private string Log()
    {
        lock (_log)
        {
            return _log.ToString().Trim();
        }
    }

    private static int[] FreePorts(int count)
    {
        var listeners = Enumerable.Range(0, count).Select(_ => new TcpListener(IPAddress.Loopback, 0)).ToList();
        listeners.ForEach(l => l.Start());
        int[] ports = [.. listeners.Select(l => ((IPEndPoint)l.LocalEndpoint).Port)];
        listeners.ForEach(l => l.Stop());
        return ports;
    }
}
