using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text.Json;
using System.Text.RegularExpressions;
using Azure.Data.Tables;
using StorageBench.Cli;
using StorageBench.Engine;
using StorageBench.Engine.Statistics;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// Ctrl+C on the default path, in a real terminal (tmux): the CLI started its own Azurite, and a terminal sends
/// SIGINT to the whole foreground process group. The Azurite must survive it, so the run cancels cleanly; and it
/// must still never outlive the CLI. Every wait is on what the terminal shows, and bounded.
/// </summary>
[Trait("Category", "EndToEnd")]
public class CtrlCTests(ITestOutputHelper output)
{
    private const string Spec = """
        { "scenario": "ctrl-c-terminal", "startDelaySeconds": 1,
          "tableInsert": { "entitySizeBytes": 256, "batchSize": 20, "partitionCount": 2, "concurrency": 4, "durationSeconds": 120 } }
        """;

    [RequiresToolFact("tmux")]
    public async Task CtrlCInATerminalOnTheDefaultPathEndsCanceledVerifiedWithNothingLeftAndExitOne()
    {
        await using var terminal = await Terminal.StartAsync(Spec);
        var (tablePort, screen) = await terminal.WaitForWritingAsync(output);
        // The run's table is in the CLI's own Azurite while it writes.
        var tables = new TableServiceClient($"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={AzuriteServer.DevAccountKey};TableEndpoint=http://127.0.0.1:{tablePort}/devstoreaccount1;");
        Assert.Contains(await TableNamesAsync(tables), t => t.StartsWith("sbt", StringComparison.Ordinal));

        var pressed = Stopwatch.StartNew();
        await terminal.KeysAsync("C-c");
        // Until the CLI ends, look into its Azurite: a listing taken after summary.json was written is after the run's cleanup.
        var afterCleanup = new List<string>();
        while (!(screen = await terminal.ScreenAsync()).Contains("EXIT=", StringComparison.Ordinal) && pressed.Elapsed < TimeSpan.FromSeconds(60))
        {
            bool reported = File.Exists(Path.Combine(terminal.Dir, "summary.json"));
            try
            {
                var names = await TableNamesAsync(tables).WaitAsync(TimeSpan.FromSeconds(2));
                if (reported)
                {
                    afterCleanup = names;
                }
            }
            catch (Exception ex) when (ex is Azure.RequestFailedException or TimeoutException or AggregateException)
            {
                // Azurite stopped: the CLI is ending.
            }
            await Task.Delay(100);
        }
        var took = pressed.Elapsed;
        screen = await terminal.ScreenAsync(all: true);
        output.WriteLine(screen);
        output.WriteLine($"Ctrl+C: the CLI ended {took.TotalSeconds:0.0} s later");

        Assert.Contains("EXIT=1", screen);
        Assert.Contains("— Canceled", screen);
        Assert.DoesNotContain("Connection refused", screen);
        var summary = JsonSerializer.Deserialize<RunSummary>(await File.ReadAllTextAsync(Path.Combine(terminal.Dir, "summary.json")), JsonDefaults.Options)!;
        output.WriteLine(string.Join(Environment.NewLine, summary.Errors));
        Assert.Equal(RunStatus.Canceled, summary.Status);
        var table = summary.Workloads.Single();
        Assert.True(table.Entities > 0, "partial figures");
        Assert.True(table.Verified.Matched, table.Verified.Detail);
        // The run deleted its table and stored its result in the Azurite it ran in: no step of cleanup failed.
        Assert.DoesNotContain(summary.Errors, e => e.StartsWith("cleanup", StringComparison.Ordinal) || e.StartsWith("storing", StringComparison.Ordinal));
        Assert.DoesNotContain(afterCleanup, t => t.StartsWith("sbt", StringComparison.Ordinal));
        // And the Azurite itself is gone with the CLI.
        Assert.False(await ListensAsync(tablePort), $"Azurite still listens on {tablePort}");
    }

    [RequiresToolFact("tmux")]
    public async Task ASecondCtrlCStopsAtOnceSayingWhatItLeavesAndTheCliStartedAzuriteStopsWithIt()
    {
        await using var terminal = await Terminal.StartAsync(Spec);
        var (tablePort, _) = await terminal.WaitForWritingAsync(output);

        await terminal.KeysAsync("C-c");
        await terminal.WaitForAsync("Ctrl+C: canceling", TimeSpan.FromSeconds(30));
        await terminal.KeysAsync("C-c");
        string screen = await terminal.WaitForAsync("EXIT=", TimeSpan.FromSeconds(30));
        output.WriteLine(screen);

        Assert.Contains("EXIT=130", screen);
        Assert.Matches(new Regex(@"Ctrl\+C again: stopped at once; run [a-z0-9-]+ is not verified"), screen);
        Assert.Contains("in-memory Azurite this CLI started, which stops too", screen);
        // The process exited without stopping Azurite itself: the watcher did, when the CLI's pipe closed.
        await Waits.UntilAsync(async () => !await ListensAsync(tablePort), TimeSpan.FromSeconds(15), $"Azurite still listens on {tablePort}");
    }

    [Fact]
    public async Task AnAzuriteTheCliStartedStopsWhenTheCliIsKilled()
    {
        using var cli = CliProcess.Start(new Dictionary<string, string> { ["CI"] = "1" }, "run", "--spec", await SpecFileAsync(), "--out", Directory.CreateTempSubdirectory("sb-kill").FullName);
        var ports = new TaskCompletionSource<int>();
        cli.OutputDataReceived += (_, e) =>
        {
            if (e.Data is { } line && Regex.Match(line, @"^Azurite: blob 127\.0\.0\.1:\d+, table 127\.0\.0\.1:(\d+)") is { Success: true } m)
            {
                ports.TrySetResult(int.Parse(m.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture));
            }
        };
        cli.BeginOutputReadLine();
        int tablePort = await ports.Task.WaitAsync(TimeSpan.FromSeconds(90));
        Assert.True(await ListensAsync(tablePort));

        cli.Kill();   // SIGKILL: no handler, no dispose runs in the CLI
        await cli.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(30));

        await Waits.UntilAsync(async () => !await ListensAsync(tablePort), TimeSpan.FromSeconds(15), $"Azurite still listens on {tablePort} after the CLI was killed");
    }

    private static async Task<string> SpecFileAsync()
    {
        string file = Path.Combine(Directory.CreateTempSubdirectory("sb-ctrlc").FullName, "spec.json");
        await File.WriteAllTextAsync(file, Spec);
        return file;
    }

    private static async Task<bool> ListensAsync(int port)
    {
        using var client = new TcpClient();
        try
        {
            await client.ConnectAsync(IPAddress.Loopback, port).WaitAsync(TimeSpan.FromSeconds(5));
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }

    private static async Task<List<string>> TableNamesAsync(TableServiceClient tables)
    {
        var names = new List<string>();
        await foreach (var t in tables.QueryAsync())
        {
            names.Add(t.Name);
        }
        return names;
    }

    /// <summary>The CLI in a tmux terminal of the test's own, on the default path (no connection string, no STORAGEBENCH_TARGET_*).</summary>
    private sealed class Terminal : IAsyncDisposable
    {
        private readonly string _socket = "sb-" + Guid.NewGuid().ToString("N")[..8];

        public string Dir { get; } = Directory.CreateTempSubdirectory("sb-ctrlc").FullName;

        public static async Task<Terminal> StartAsync(string spec)
        {
            var t = new Terminal();
            string specFile = Path.Combine(t.Dir, "spec.json");
            await File.WriteAllTextAsync(specFile, spec);
            string cli = Path.Combine(AppContext.BaseDirectory, "storagebench.dll");
            // A user's terminal: bash runs the CLI in the foreground (Ctrl+C goes to its whole process group), no CI
            // variable and no target settings. Bash carries on after a child that handled SIGINT, so EXIT= shows.
            string script = Path.Combine(t.Dir, "run.sh");
            await File.WriteAllTextAsync(script, $"""
                cd '{Repo.Root()}'
                env -u CI -u {Engine.Targets.TargetSettings.TargetConnectionString} -u {Engine.Targets.TargetSettings.TargetTableEndpoints} dotnet '{cli}' run --spec '{specFile}' --out '{t.Dir}'
                echo EXIT=$?
                sleep 600
                """);
            await ProgressTests.TmuxAsync(t._socket, "new-session", "-d", "-x", "200", "-y", "50", "bash", script);
            return t;
        }

        /// <summary>Waits until the CLI is writing (progress shows entities), and returns its Azurite's table port.</summary>
        public async Task<(int TablePort, string Screen)> WaitForWritingAsync(ITestOutputHelper output)
        {
            string screen = await WaitForAsync(s => Regex.IsMatch(s, @"running tableInsert on 1 slice\(s\): \d+/120 s, [1-9][\d,]* entities"), TimeSpan.FromSeconds(120));
            var m = Regex.Match(screen, @"Azurite: blob 127\.0\.0\.1:\d+, table 127\.0\.0\.1:(\d+)");
            Assert.True(m.Success, "no Azurite line:\n" + screen);
            output.WriteLine(screen);
            return (int.Parse(m.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture), screen);
        }

        public Task<string> WaitForAsync(string text, TimeSpan limit) => WaitForAsync(s => s.Contains(text, StringComparison.Ordinal), limit);

        private async Task<string> WaitForAsync(Func<string, bool> seen, TimeSpan limit)
        {
            var clock = Stopwatch.StartNew();
            string screen;
            while (!seen(screen = await ScreenAsync(all: true)))
            {
                Assert.True(clock.Elapsed < limit, $"not seen within {limit.TotalSeconds:0} s:\n{screen}");
                await Task.Delay(200);
            }
            return screen;
        }

        public Task<string> ScreenAsync(bool all = false) =>
            all ? ProgressTests.TmuxAsync(_socket, "capture-pane", "-p", "-J", "-S", "-") : ProgressTests.TmuxAsync(_socket, "capture-pane", "-p", "-J");

        public Task KeysAsync(string keys) => ProgressTests.TmuxAsync(_socket, "send-keys", keys);

        public async ValueTask DisposeAsync()
        {
            await ProgressTests.TmuxAsync(_socket, "kill-server");
            Directory.Delete(Dir, recursive: true);
        }
    }
}
