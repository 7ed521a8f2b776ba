using System.Reflection;
using System.Text.Json;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration;
using StorageBench.Orchestration.Hosting;
using StorageBench.Results;

namespace StorageBench.Cli;

/// <summary>The local entry point: parse arguments, validate the spec, start Azurite, run, report. No benchmark logic.</summary>
public static class CliApp
{
    public const string Usage = """
        usage: storagebench run [--spec FILE] [--out DIR] [--connection-string CS]
          --spec FILE              run spec JSON (default: the built-in quick scenario, specs/quick.json)
          --out DIR                where summary.json and summary.md go (default: out/<runId>)
          --connection-string CS   storage account to test (default: start Azurite on loopback;
                                   also read from STORAGEBENCH_CONNECTION_STRING)
        exit codes: 0 completed and verified, 1 run failed or unverified, 2 bad arguments or spec
        """;

    public static async Task<int> RunAsync(string[] args, TextWriter stdout, TextWriter stderr, CancellationToken ct)
    {
        if (args.Length == 0 || args[0] != "run")
        {
            await stderr.WriteLineAsync(Usage).ConfigureAwait(false);
            return 2;
        }
        var options = new Dictionary<string, string>();
        for (int i = 1; i < args.Length; i++)
        {
            if (args[i] is not ("--spec" or "--out" or "--connection-string") || i + 1 >= args.Length)
            {
                await stderr.WriteLineAsync($"error: unknown or incomplete option '{args[i]}'{Environment.NewLine}{Usage}").ConfigureAwait(false);
                return 2;
            }
            options[args[i]] = args[++i];
        }

        string specJson;
        try
        {
            specJson = options.TryGetValue("--spec", out var file) ? await File.ReadAllTextAsync(file, ct).ConfigureAwait(false) : DefaultSpec();
        }
        catch (IOException ex)
        {
            await stderr.WriteLineAsync($"error: --spec: {ex.Message}").ConfigureAwait(false);
            return 2;
        }
        // Validate before anything starts: a rejected spec creates no table, container or result row.
        var (spec, errors) = RunSpecParser.Parse(specJson);
        if (spec is null)
        {
            await stderr.WriteLineAsync("error: the run spec was rejected; nothing was started:").ConfigureAwait(false);
            foreach (var e in errors)
            {
                await stderr.WriteLineAsync("  " + e).ConfigureAwait(false);
            }
            return 2;
        }

        string? connection = options.GetValueOrDefault("--connection-string") ?? Environment.GetEnvironmentVariable("STORAGEBENCH_CONNECTION_STRING");
        AzuriteServer? azurite = null;
        try
        {
            if (connection is null)
            {
                await stdout.WriteLineAsync("Starting Azurite on loopback (in-memory)...").ConfigureAwait(false);
                azurite = await AzuriteServer.StartAsync(ct).ConfigureAwait(false);
                connection = azurite.ConnectionString;
                await stdout.WriteLineAsync($"Azurite: blob 127.0.0.1:{azurite.BlobPort}, table 127.0.0.1:{azurite.TablePort}").ConfigureAwait(false);
            }
            var summary = await RunOnInProcessHostAsync(spec, StorageTarget.FromConnectionString(connection), stdout, ct).ConfigureAwait(false);
            string outDir = options.GetValueOrDefault("--out") ?? Path.Combine("out", summary.RunId);
            var files = await ReportWriter.WriteAsync(summary, outDir, ct).ConfigureAwait(false);
            await stdout.WriteLineAsync().ConfigureAwait(false);
            await stdout.WriteLineAsync(ReportWriter.Markdown(summary)).ConfigureAwait(false);
            await stdout.WriteLineAsync($"Wrote {string.Join(", ", files)}").ConfigureAwait(false);
            using (var self = System.Diagnostics.Process.GetCurrentProcess())
            {
                // The driver's own footprint (Azurite is a separate process): memory must not grow with run length.
                await stdout.WriteLineAsync($"Driver peak working set: {self.PeakWorkingSet64 / 1_048_576.0:0.0} MiB").ConfigureAwait(false);
            }
            return ExitCode(summary);
        }
        finally
        {
            if (azurite is not null)
            {
                await azurite.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    public static int ExitCode(RunSummary summary) =>
        summary.Status == RunStatus.Completed && summary.Workloads.All(w => w.Verified.Matched) ? 0 : summary.Status == RunStatus.Invalid ? 2 : 1;

    private static async Task<RunSummary> RunOnInProcessHostAsync(RunSpec spec, StorageTarget target, TextWriter stdout, CancellationToken ct)
    {
        var host = BenchmarkHost.Create(target, new ResultsTableStore(target), TimeProvider.System, shutdown: ct);
        var started = await new RunStarter(host, TimeProvider.System).StartAsync(spec, "local-cli", null, ct).ConfigureAwait(false);
        string runId = started.RunId!;
        await stdout.WriteLineAsync($"Run {runId} started (scenario {spec.Scenario}).").ConfigureAwait(false);

        var completion = host.WaitForCompletionAsync(runId, ct);
        string? lastStatus = null;
        while (!completion.IsCompleted)
        {
            var state = await host.GetStateAsync(runId, ct).ConfigureAwait(false);
            if (state?.CustomStatusJson is { } status && status != lastStatus)
            {
                var p = JsonSerializer.Deserialize<RunProgress>(status, JsonDefaults.Options)!;
                await stdout.WriteLineAsync($"  {p.Phase}{(p.Workload is null ? "" : $" {p.Workload} on {p.Slices} slice(s)")}...").ConfigureAwait(false);
                lastStatus = status;
            }
            await Task.WhenAny(completion, Task.Delay(250, ct)).ConfigureAwait(false);
        }
        var final = await completion.ConfigureAwait(false);
        return RunStarter.SummaryOf(final) ?? throw new InvalidOperationException($"orchestration {runId} ended {final.RuntimeStatus}: {final.FailureMessage}");
    }

    private static string DefaultSpec()
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream("quick.json")!;
        return new StreamReader(stream).ReadToEnd();
    }
}
