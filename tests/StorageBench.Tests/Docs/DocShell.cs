using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.RegularExpressions;

namespace StorageBench.Tests;

/// <summary>
/// Runs documented commands with bash from the repository root, as a user would, with what the docs
/// leave to the reader filled in: $ACCOUNT / $MY_ACCOUNT (this test's Azurite), port 7071 (a free
/// port for serve), &lt;id&gt; (the last run started), my-spec.json and results/… (a small spec, a
/// temporary directory).
/// </summary>
internal sealed class DocShell : IAsyncDisposable
{
    private readonly string _root = Repo.Root();
    private readonly string _temp = Path.Combine(Path.GetTempPath(), "sb-docs-" + Guid.NewGuid().ToString("N")[..8]);
    private readonly string _connectionString;
    private readonly int _port = FreePort();
    private string Tools => Path.Combine(_temp, "tools");
    private Process? _serve;
    private readonly StringBuilder _serveOutput = new();

    public DocShell(string connectionString)
    {
        _connectionString = connectionString;
        Directory.CreateDirectory(_temp);
        // The reader's file holding the account's connection string (docs/cli.md: keys stay off the command line).
        File.WriteAllText(Path.Combine(_temp, "account.cs"), connectionString);
        File.WriteAllText(Path.Combine(_temp, "my-spec.json"), """
            { "scenario": "docs-my-spec", "startDelaySeconds": 0, "tableInsert": { "entityCount": 500, "batchSize": 50 } }
            """);
    }

    /// <summary>The run the last POST started: only the serve lane starts runs by id and uses them.</summary>
    public string? LastRunId { get; set; }

    public string ServeBanner
    {
        get
        {
            lock (_serveOutput)
            {
                return _serveOutput.ToString();
            }
        }
    }

    public string Substitute(string command) => command
        .Replace("localhost:7071", $"127.0.0.1:{_port}", StringComparison.Ordinal)
        .Replace("127.0.0.1:7071", $"127.0.0.1:{_port}", StringComparison.Ordinal)
        .Replace("--port 7071", $"--port {_port}", StringComparison.Ordinal)
        .Replace("dotnet tool update --global ", $"dotnet tool update --tool-path {Tools} ", StringComparison.Ordinal)
        .Replace("<id>", LastRunId ?? "<id>", StringComparison.Ordinal)
        .Replace("<runId>", LastRunId ?? "<runId>", StringComparison.Ordinal)
        .Replace(" my-spec.json", " " + Path.Combine(_temp, "my-spec.json"), StringComparison.Ordinal)
        .Replace(" account.cs", " " + Path.Combine(_temp, "account.cs"), StringComparison.Ordinal)
        .Replace(" results/", " " + Path.Combine(_temp, "results") + "/", StringComparison.Ordinal);

    private int _runs;

    /// <summary>
    /// The command with this test's folder in place of the user's <c>out/</c>: a run without <c>--out</c> writes under it, and
    /// a listing without an account or <c>--results</c> reads it. The command's trailing comment stays last.
    /// </summary>
    public string InOwnOut(string command)
    {
        var parts = Regex.Match(command, @"^(?<command>.*?)(?<comment>\s+#.*)?$");
        string text = parts.Groups["command"].Value;
        string own = Path.Combine(_temp, "out");
        string? option = Regex.IsMatch(text, @"^(storagebench runs|\./scripts/query\.sh)\b")
            ? text.Contains("--connection-string", StringComparison.Ordinal) || text.Contains("--results", StringComparison.Ordinal) ? null : $" --results {own}"
            : text.Contains("--out ", StringComparison.Ordinal) ? null : $" --out {Path.Combine(own, Interlocked.Increment(ref _runs).ToString(System.Globalization.CultureInfo.InvariantCulture))}";
        return text + option + parts.Groups["comment"].Value;
    }

    public async Task<(int Exit, string Output)> RunAsync(string command)
    {
        using var process = Start(command);
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(15));
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            return (-1, "timed out after 15 minutes\n" + await stdout + await stderr);
        }
        return (process.ExitCode, await stdout + await stderr);
    }

    /// <summary>Starts a server command (serve) and waits for its banner; it is stopped when the test ends.</summary>
    public async Task<(int Exit, string Output)> StartServeAsync(string command)
    {
        var listening = new TaskCompletionSource();
        _serve = Start(command);
        DataReceivedEventHandler collect = (_, e) =>
        {
            lock (_serveOutput)
            {
                _serveOutput.AppendLine(e.Data);
            }
            if (e.Data?.Contains("Runs API on", StringComparison.Ordinal) == true)
            {
                listening.TrySetResult();
            }
        };
        _serve.OutputDataReceived += collect;
        _serve.ErrorDataReceived += collect;
        _serve.BeginOutputReadLine();
        _serve.BeginErrorReadLine();
        var exited = _serve.WaitForExitAsync();
        var first = await Task.WhenAny(listening.Task, exited, Task.Delay(TimeSpan.FromMinutes(3)));
        return (first == listening.Task ? 0 : _serve.HasExited ? _serve.ExitCode : -1, ServeBanner);
    }

    private Process Start(string command)
    {
        var psi = new ProcessStartInfo("bash") { WorkingDirectory = _root, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        psi.ArgumentList.Add("-c");
        psi.ArgumentList.Add(Substitute(command));
        psi.Environment["ACCOUNT"] = _connectionString;
        psi.Environment["MY_ACCOUNT"] = _connectionString;
        // `storagebench` is the tool the README's install line put into this test's tool directory.
        psi.Environment["PATH"] = Tools + Path.PathSeparator + psi.Environment["PATH"];
        BuildEnvironment.Clean(psi);
        return Process.Start(psi)!;
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    public async ValueTask DisposeAsync()
    {
        if (_serve is { HasExited: false })
        {
            // As Ctrl+C would: serve stops its Azurite on the way out.
            _serve.Kill(entireProcessTree: true);
            await _serve.WaitForExitAsync();
        }
        _serve?.Dispose();
        Directory.Delete(_temp, recursive: true);
    }
}
