using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using StorageBench.Cli;
using StorageBench.Engine;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// SIGTERM — what CI cancellation, `docker stop`, systemd and `timeout` send — is Ctrl+C: a real CLI process sent it
/// mid-run ends the run Canceled, with its reports written and nothing left in the target, and exits as Ctrl+C does; a
/// second signal stops at once, naming what it leaves; `serve` cancels its runs and stops; a worker hands its slices back
/// and the run they belong to goes on elsewhere, not Canceled. Each test has an Azurite of its own. Every wait is on what
/// the product does, bounded generously (two CPU hogs on two cores); how long the CLI took is printed, not asserted.
/// </summary>
[Trait("Category", "EndToEnd")]
public class StopSignalTests(ITestOutputHelper output)
{
    private const string LongRun = """
        { "scenario": "sigterm", "startDelaySeconds": 0, "tableInsert": { "entitySizeBytes": 256, "batchSize": 20, "concurrency": 4, "durationSeconds": 120 } }
        """;

    [Fact]
    public async Task SigtermEndsARunCanceledWithItsReportsWrittenNothingLeftInTheTargetAndCtrlCsExitCode()
    {
        await using var storage = await AzuriteServer.StartAsync();
        var target = StorageTarget.FromConnectionString(storage.ConnectionString);
        string dir = TempDir();
        await using var cli = Cli.Start(output, "run", "--spec", await SpecAsync(dir, LongRun), "--connection-string", storage.ConnectionString, "--out", Path.Combine(dir, "out"));
        string runId = await cli.RunIdAsync();
        // Signaled once the run has written: partial figures to report, and a table to delete.
        await Waits.ForEntitiesAsync(target, runId, 200, TimeSpan.FromSeconds(120));

        var signaled = Stopwatch.StartNew();
        cli.Signal("TERM");
        int exit = await cli.ExitAsync(TimeSpan.FromMinutes(3));
        output.WriteLine($"SIGTERM: the CLI ended {signaled.Elapsed.TotalSeconds:0.0} s later, exit {exit}");

        // Ctrl+C's exit code: the run ended Canceled (1), not killed by the signal (-15 / 143).
        Assert.Equal(1, exit);
        Assert.Contains("SIGTERM: canceling: the slices stop", cli.Output);
        foreach (string report in new[] { "summary.json", "summary.md", "summary.html" })
        {
            Assert.True(File.Exists(Path.Combine(dir, "out", report)), $"{report} not written");
        }
        var summary = JsonSerializer.Deserialize<RunSummary>(await File.ReadAllTextAsync(Path.Combine(dir, "out", "summary.json")), JsonDefaults.Options)!;
        Assert.Equal(runId, summary.RunId);
        Assert.Equal(RunStatus.Canceled, summary.Status);
        var table = summary.Workloads.Single();
        Assert.True(table.Entities > 0, "partial figures");
        Assert.True(table.Verified.Matched, table.Verified.Detail);
        Assert.DoesNotContain(summary.Errors, e => e.StartsWith("cleanup", StringComparison.Ordinal) || e.StartsWith("storing", StringComparison.Ordinal));
        // Nothing of the run left in the target; its result is stored as Canceled.
        Assert.Empty(await new TargetCleaner([target]).OfRunAsync(runId, default));
        using var results = await TestHubStore.ResultsAsync();
        Assert.Equal("Canceled", (await results.ListRunsAsync("sigterm", 5, default)).Single(r => r.GetString("RunId") == runId).GetString("Status"));
        // Nor anything of its own task hub in the hub store.
        Assert.Empty(await AccountContents.OfRunHubAsync(results.Target, runId));
    }

    [Fact]
    public async Task ASecondSignalStopsAtOnceNamingTheRunAndWhatItLeavesInTheAccount()
    {
        await using var storage = await AzuriteServer.StartAsync();
        var target = StorageTarget.FromConnectionString(storage.ConnectionString);
        string dir = TempDir();
        await using var cli = Cli.Start(output, "run", "--spec", await SpecAsync(dir, LongRun), "--connection-string", storage.ConnectionString, "--out", Path.Combine(dir, "out"));
        string runId = await cli.RunIdAsync();
        await Waits.ForEntitiesAsync(target, runId, 200, TimeSpan.FromSeconds(120));

        cli.Signal("TERM");
        // The first one was handled (its line is out) before the second is sent: two signals, not one coalesced.
        await Waits.UntilAsync(() => Task.FromResult(cli.Output.Contains("SIGTERM: canceling", StringComparison.Ordinal)), TimeSpan.FromSeconds(60), "the first SIGTERM's line");
        cli.Signal("TERM");
        int exit = await cli.ExitAsync(TimeSpan.FromMinutes(1));

        Assert.Equal(130, exit);
        Assert.Contains($"SIGTERM again: stopped at once; run {runId} is not verified, its result row is not stored and no report is written; " +
            "its step tables and containers (sbt…/sbb… names) are left in the account: `storagebench cleanup` deletes them", cli.Output);
        Assert.False(File.Exists(Path.Combine(dir, "out", "summary.json")), "a report was written");
        // What the line names is there.
        Assert.NotEmpty(await new TargetCleaner([target]).OfRunAsync(runId, default));
    }

    [Fact]
    public async Task SigtermStopsServeAfterTheRunsItStartedAreCanceledAndCleanedUpExitZero()
    {
        await using var storage = await AzuriteServer.StartAsync();
        var target = StorageTarget.FromConnectionString(storage.ConnectionString);
        await using var cli = Cli.Start(output, "serve", "--port", "0", "--connection-string", storage.ConnectionString);
        var listening = await Waits.UntilAsync(() => Task.FromResult(Regex.Match(cli.Output, @"Runs API on (http://127\.0\.0\.1:\d+/)")),
            m => m.Success, TimeSpan.FromMinutes(2), "the Runs API line");
        var api = new Uri(listening.Groups[1].Value);
        // Given a target, serve started no Azurite, and says only what Ctrl+C stops.
        Assert.Contains($"Runs API on {api} (loopback only; Ctrl+C stops it):", cli.Output);
        using var http = new HttpClient { BaseAddress = api };
        var post = await http.PostAsync("api/runs", new StringContent(LongRun.Replace("\"sigterm\"", "\"sigterm-serve\"", StringComparison.Ordinal), Encoding.UTF8, "application/json"));
        string runId = (string)JsonNode.Parse(await post.Content.ReadAsStringAsync())!["id"]!;
        await Waits.ForEntitiesAsync(target, runId, 200, TimeSpan.FromSeconds(120));

        var signaled = Stopwatch.StartNew();
        cli.Signal("TERM");
        int exit = await cli.ExitAsync(TimeSpan.FromMinutes(3));
        output.WriteLine($"SIGTERM: serve ended {signaled.Elapsed.TotalSeconds:0.0} s later, exit {exit}");

        Assert.Equal(0, exit);
        Assert.Contains("SIGTERM: stopping: the runs this server started are canceled", cli.Output);
        Assert.Empty(await new TargetCleaner([target]).OfRunAsync(runId, default));
        using var results = await TestHubStore.ResultsAsync();
        Assert.Equal("Canceled", (await results.ListRunsAsync("sigterm-serve", 5, default)).Single(r => r.GetString("RunId") == runId).GetString("Status"));
    }

    [Fact]
    public async Task AWorkerSentSigtermExitsZeroAndItsSlicesRunAgainOnAnotherWorkerTheRunCompletesNotCanceled()
    {
        await using var storage = await AzuriteServer.StartAsync();
        var target = StorageTarget.FromConnectionString(storage.ConnectionString);
        string dir = TempDir();
        // Two slices of 30 s in an open loop (a small table: the verification's scan stays quick on a busy machine); 30 s, so
        // they are still writing when a second worker has started on a loaded machine and the first is sent SIGTERM.
        string spec = await SpecAsync(dir, """
            { "scenario": "sigterm-worker", "startDelaySeconds": 1,
              "tableInsert": { "entitySizeBytes": 128, "batchSize": 20, "partitionCount": 2, "concurrency": 2, "slices": 2, "durationSeconds": 30,
                               "targetOperationsPerSecond": 10 } }
            """);
        // A hub of its own: a worker of another test on the shared hub would take this run's slices to its own target.
        string hub = "sigterm" + Guid.NewGuid().ToString("N")[..8];
        await using var first = Cli.Start(output, "worker", "--connection-string", storage.ConnectionString, "--task-hub", hub, "--max-activities", "2");
        await Waits.UntilAsync(() => Task.FromResult(first.Output.Contains("Worker ", StringComparison.Ordinal)), TimeSpan.FromMinutes(2), "the first worker's line");
        var stdout = new StringWriter();
        var run = Task.Run(() => CliApp.RunAsync(["run", "--external-workers", "--task-hub", hub, "--spec", spec, "--connection-string", storage.ConnectionString, "--out", Path.Combine(dir, "out")],
            stdout, new StringWriter(), default));
        // Both slices are writing on the first worker, the only one; then a second joins and the first is sent SIGTERM.
        await Waits.ForEntitiesAsync(target, null, 200, TimeSpan.FromSeconds(120));
        await using var second = Cli.Start(output, "worker", "--connection-string", storage.ConnectionString, "--task-hub", hub, "--max-activities", "2");
        await Waits.UntilAsync(() => Task.FromResult(second.Output.Contains("Worker ", StringComparison.Ordinal)), TimeSpan.FromMinutes(2), "the second worker's line");

        var signaled = Stopwatch.StartNew();
        first.Signal("TERM");
        int exit = await first.ExitAsync(TimeSpan.FromMinutes(2));
        output.WriteLine($"SIGTERM: the worker ended {signaled.Elapsed.TotalSeconds:0.0} s later, exit {exit}");
        int runExit = await run.WaitAsync(TimeSpan.FromMinutes(6));
        output.WriteLine($"the run ended {signaled.Elapsed.TotalSeconds:0.0} s after the SIGTERM, exit {runExit}");
        output.WriteLine(stdout.ToString());

        Assert.Equal(0, exit);
        Assert.Contains("SIGTERM: stopping this worker", first.Output);
        // The run it was serving goes on: not Canceled, every slice re-run on the second worker, every entity verified.
        var summary = JsonSerializer.Deserialize<RunSummary>(await File.ReadAllTextAsync(Path.Combine(dir, "out", "summary.json")), JsonDefaults.Options)!;
        output.WriteLine(string.Join(Environment.NewLine, summary.Errors));
        Assert.Equal(RunStatus.Completed, summary.Status);
        Assert.Equal(0, runExit);
        var table = summary.Workloads.Single();
        Assert.True(table.Verified.Matched, table.Verified.Detail);
        Assert.All(table.PerSlice, s => Assert.Equal($"{Environment.MachineName}/{second.Id}", s.Worker));
        Assert.Contains(summary.Notes, e => e.Contains("re-run", StringComparison.Ordinal) && e.Contains($"/{first.Id}", StringComparison.Ordinal));
        Assert.Empty(await new TargetCleaner([target]).OfRunAsync(summary.RunId, default));
    }

    [Fact]
    public void TheFirstSignalCancelsTheSecondStopsAtOnceWhicheverSignalsTheyAre()
    {
        var stderr = new StringWriter();
        int? exited = null;
        using var signals = new StopSignals(stderr, code => exited = code);

        signals.Handle(System.Runtime.InteropServices.PosixSignal.SIGTERM);
        Assert.True(signals.Token.IsCancellationRequested);
        Assert.Null(exited);
        signals.Handle(System.Runtime.InteropServices.PosixSignal.SIGINT);

        Assert.Equal(130, exited);
        Assert.Contains("SIGTERM: ", stderr.ToString());
        Assert.Contains("Ctrl+C after SIGTERM: stopped at once", stderr.ToString());
    }

    private static string TempDir() => Directory.CreateTempSubdirectory("sb-signal").FullName;

    private static async Task<string> SpecAsync(string dir, string json)
    {
        string file = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(file, json);
        return file;
    }

    /// <summary>A CLI process (not a terminal: plain lines), its stdout and stderr collected as they come, killed if a test ends before it.</summary>
    private sealed class Cli : IAsyncDisposable
    {
        private readonly Process _process;
        private readonly StringBuilder _lines = new();
        private readonly ITestOutputHelper _output;

        private Cli(Process process, ITestOutputHelper output)
        {
            _process = process;
            _output = output;
        }

        public int Id => _process.Id;

        public string Output
        {
            get
            {
                lock (_lines)
                {
                    return _lines.ToString();
                }
            }
        }

        public static Cli Start(ITestOutputHelper output, params string[] args)
        {
            var cli = new Cli(CliProcess.Start(new Dictionary<string, string> { ["CI"] = "1" }, args), output);
            cli._process.OutputDataReceived += (_, e) => cli.Add(e.Data);
            cli._process.ErrorDataReceived += (_, e) => cli.Add(e.Data);
            cli._process.BeginOutputReadLine();
            cli._process.BeginErrorReadLine();
            return cli;
        }

        private void Add(string? line)
        {
            lock (_lines)
            {
                _lines.AppendLine(line);
            }
        }

        public async Task<string> RunIdAsync() =>
            (await Waits.UntilAsync(() => Task.FromResult(Regex.Match(Output, @"Run ([a-z0-9-]+) started")), m => m.Success, TimeSpan.FromMinutes(2), "the Run … started line"))
            .Groups[1].Value;

        /// <summary>Sends a POSIX signal as `kill -TERM` (CI, docker stop, systemd, timeout) or a terminal's Ctrl+C does.</summary>
        public void Signal(string signal)
        {
            using var kill = Process.Start("kill", ["-" + signal, _process.Id.ToString(CultureInfo.InvariantCulture)])!;
            kill.WaitForExit();
        }

        public async Task<int> ExitAsync(TimeSpan limit)
        {
            await _process.WaitForExitAsync().WaitAsync(limit);
            // The last lines: WaitForExit (no argument) drains the redirected streams.
            _process.WaitForExit();
            return _process.ExitCode;
        }

        public async ValueTask DisposeAsync()
        {
            if (!_process.HasExited)
            {
                _process.Kill();
                await _process.WaitForExitAsync();
            }
            _output.WriteLine(Output);
            _process.Dispose();
        }
    }
}
