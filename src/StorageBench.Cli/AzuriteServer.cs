using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace StorageBench.Cli;

/// <summary>
/// Azurite from the repo's pinned npm package, on loopback only: in-memory, telemetry off, API
/// version check off, on free ports chosen at start. Disposing stops it and everything it stored.
/// </summary>
/// <remarks>
/// It runs in a session of its own, so a terminal's Ctrl+C (SIGINT to the whole foreground process group)
/// reaches only the CLI, which then cancels the run, cleans up in this Azurite and stops it last. It still
/// never outlives the process that started it: a watcher beside it reads a pipe from that process and stops
/// Azurite when the pipe closes, which the kernel does when the process ends in any way (a crash, SIGKILL).
/// </remarks>
public sealed class AzuriteServer : IAsyncDisposable
{
    /// <summary>The well-known development account key: the only key that may appear in the repo.</summary>
    public const string DevAccountKey = Engine.Targets.StorageTarget.DevelopmentAccountKey;

    private readonly Process _process;
    private readonly StringBuilder _log;

    private AzuriteServer(Process process, StringBuilder log, int[] ports, string account, string key)
    {
        _process = process;
        _log = log;
        BlobPort = ports[0];
        QueuePort = ports[1];
        TablePort = ports[2];
        Account = account;
        Key = key;
    }

    public int BlobPort { get; }
    public int QueuePort { get; }
    public int TablePort { get; }
    public string Account { get; }
    public string Key { get; }

    /// <summary>The ports, to start Azurite again on the same ones (same connection string).</summary>
    public int[] Ports => [BlobPort, QueuePort, TablePort];

    public string ConnectionString => ConnectionStringFor(Ports, Account, Key);

    /// <summary>An Azurite's connection string from its blob, queue and table ports.</summary>
    public static string ConnectionStringFor(int[] ports, string account = "devstoreaccount1", string key = DevAccountKey) =>
        $"DefaultEndpointsProtocol=http;AccountName={account};AccountKey={key};" +
        $"BlobEndpoint=http://127.0.0.1:{ports[0]}/{account};QueueEndpoint=http://127.0.0.1:{ports[1]}/{account};" +
        $"TableEndpoint=http://127.0.0.1:{ports[2]}/{account};";

    /// <param name="account">An account other than the development account (with <paramref name="key"/>, base64): Azurite then serves only it.</param>
    /// <param name="ports">Blob, queue and table ports to bind (default: free ones).</param>
    /// <param name="checkApiVersion">True: without --skipApiVersionCheck, as a user starts it: requests must carry a service version it knows.</param>
    public static async Task<AzuriteServer> StartAsync(CancellationToken ct = default, string account = "devstoreaccount1", string key = DevAccountKey, int[]? ports = null,
        bool checkApiVersion = false)
    {
        string azurite = FindExecutable();
        Exception? last = null;
        // A port picked free can be taken before Azurite binds it; try a fresh set a few times.
        for (int attempt = 0; attempt < (ports is null ? 3 : 1); attempt++)
        {
            int[] bind = ports ?? FreePorts(3);
            var log = new StringBuilder();
            var psi = Platform.ShellInOwnSession(Watched,
            [
                azurite, "--inMemoryPersistence", "--disableTelemetry", "--loose", "--silent",
                "--blobHost", "127.0.0.1", "--blobPort", bind[0].ToString(),
                "--queueHost", "127.0.0.1", "--queuePort", bind[1].ToString(),
                "--tableHost", "127.0.0.1", "--tablePort", bind[2].ToString(),
            ], waitForIt: true);
            psi.RedirectStandardInput = true;
            psi.RedirectStandardOutput = true;
            psi.RedirectStandardError = true;
            psi.WorkingDirectory = Path.GetTempPath();
            if (account != "devstoreaccount1" || key != DevAccountKey)
            {
                psi.Environment["AZURITE_ACCOUNTS"] = $"{account}:{key}";
            }
            if (!checkApiVersion)
            {
                psi.ArgumentList.Add("--skipApiVersionCheck");
            }
            DeferUnusedModules(psi);
            var process = Process.Start(psi) ?? throw new InvalidOperationException($"could not start {azurite}");
            process.OutputDataReceived += (_, e) => { lock (log) { log.AppendLine(e.Data); } };
            process.ErrorDataReceived += (_, e) => { lock (log) { log.AppendLine(e.Data); } };
            process.BeginOutputReadLine();
            process.BeginErrorReadLine();
            var server = new AzuriteServer(process, log, bind, account, key);
            try
            {
                await WaitUntilListeningAsync(bind, TimeSpan.FromSeconds(60), () => process.HasExited, ct).ConfigureAwait(false);
                return server;
            }
            catch (Exception ex)
            {
                // Never leave a half-started Azurite behind, also when the start was canceled.
                string said = server.Log();
                await server.DisposeAsync().ConfigureAwait(false);
                if (ex is OperationCanceledException)
                {
                    throw;
                }
                last = new InvalidOperationException($"{ex.Message}: {said}", ex);
            }
        }
        throw new InvalidOperationException("Azurite did not start: " + last?.Message, last);
    }

    /// <summary>
    /// Runs "$@" (Azurite) and, beside it, waits for end of file on stdin (this process's pipe), then stops it;
    /// exits with Azurite's own exit code.
    /// </summary>
    /// (A background job's stdin is /dev/null unless redirected explicitly, hence fd 3.)
    private const string Watched = "exec 3<&0; \"$@\" </dev/null 3<&- & azurite=$!; { cat <&3 >/dev/null; kill $azurite 2>/dev/null; } & exec 3<&-; wait $azurite";

    /// <summary>The process id of the session Azurite runs in (its leader), for tests that check it is gone.</summary>
    public int ProcessId => _process.Id;

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync().ConfigureAwait(false);
        }
        _process.Dispose();
    }

    /// <summary>The preload beside the program that defers Azurite's requires of modules it does not use here to their first use.</summary>
    public static readonly string UnusedModulesPreload = Path.Combine(AppContext.BaseDirectory, "azurite-defer-unused.cjs");

    /// <summary>
    /// Every Azurite started here runs with --disableTelemetry and without a database, yet loads its telemetry SDK and its SQL
    /// blob server as it starts: more than half of its start (BENCHMARKS.md section 10). Node preloads
    /// <see cref="UnusedModulesPreload"/> (NODE_OPTIONS, after any the user set), which leaves those requires until Azurite
    /// first uses the modules, which here it never does.
    /// </summary>
    public static void DeferUnusedModules(ProcessStartInfo psi)
    {
        if (File.Exists(UnusedModulesPreload) && !UnusedModulesPreload.Contains('"'))
        {
            psi.Environment["NODE_OPTIONS"] = $"{Environment.GetEnvironmentVariable("NODE_OPTIONS")} --require \"{UnusedModulesPreload}\"".TrimStart();
        }
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
        throw new LocalSetupException("Azurite is not installed here (no node_modules/.bin/azurite in this folder or above it): run from the repository after ./scripts/install.sh, or pass --connection-string to test a storage account");
    }

    /// <summary>
    /// How often a starting Azurite's ports are tried: a refused loopback connect costs microseconds, and at 100 ms a start
    /// waited 50 ms on average per port after Azurite listened.
    /// </summary>
    private static readonly TimeSpan ListenPoll = TimeSpan.FromMilliseconds(10);

    /// <summary>Waits until every port accepts a connection; throws when <paramref name="exited"/> says the process is gone, or after <paramref name="limit"/>.</summary>
    internal static async Task WaitUntilListeningAsync(int[] ports, TimeSpan limit, Func<bool> exited, CancellationToken ct)
    {
        var deadline = Stopwatch.StartNew();
        foreach (int port in ports)
        {
            while (true)
            {
                if (exited())
                {
                    throw new InvalidOperationException("Azurite exited");
                }
                try
                {
                    using var client = new TcpClient();
                    await client.ConnectAsync(IPAddress.Loopback, port, ct).ConfigureAwait(false);
                    break;
                }
                catch (SocketException) when (deadline.Elapsed < limit)
                {
                    await Task.Delay(ListenPoll, ct).ConfigureAwait(false);
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

    internal static int[] FreePorts(int count)
    {
        var listeners = Enumerable.Range(0, count).Select(_ => new TcpListener(IPAddress.Loopback, 0)).ToList();
        listeners.ForEach(l => l.Start());
        int[] ports = [.. listeners.Select(l => ((IPEndPoint)l.LocalEndpoint).Port)];
        listeners.ForEach(l => l.Stop());
        return ports;
    }
}
