using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using StorageBench.Engine.Planning;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;
using StorageBench.TaskHub;

namespace StorageBench.Benchmarks;

/// <summary>The runs the full benchmark is made of: the engine's tightest loop, the pipeline, and CLI processes.</summary>
internal static class BenchRuns
{
    /// <summary>The repository's specs/ folder, beside the BENCHMARKS.md being written.</summary>
    internal static string SpecsBeside(string output) => Path.Combine(Path.GetDirectoryName(Path.GetFullPath(output))!, "specs");

    internal static async Task<double> TightLoopAsync(StorageTarget target, RunSpec spec)
    {
        string runId = Planner.NewRunId(DateTime.UtcNow);
        string stepId = Planner.StepId(runId, 0);
        string tableName = Planner.TableName(stepId, DateTime.UtcNow);
        using var clients = target.CreateClients(new ClientSettings { SdkRetries = true });
        await clients.Tables.CreateTableAsync(tableName);
        try
        {
            var plans = TableInsertRoom.PlanSlices(runId, stepId, tableName, spec.TableInsert!, spec.Client, DateTime.UtcNow.AddSeconds(spec.StartDelaySeconds));
            var slices = await Task.WhenAll(plans.Select(p => TableInsertSlice.RunAsync(p, target, TimeProvider.System, default)));
            var verified = await TableInsertGroundTruth.VerifyTableAsync(target, tableName, [.. slices.Select(s => s.AttemptId)], slices.Sum(s => s.Units + s.WarmupUnits), default);
            if (!verified.Matched)
            {
                throw new InvalidOperationException("tight loop did not verify: " + verified);
            }
            return TableInsertRoom.SummarizeSlices(spec.TableInsert!, slices, verified).Throughput.EntitiesPerSecond!.Value;
        }
        finally
        {
            await clients.Tables.DeleteTableAsync(tableName);
        }
    }

    internal static async Task<RunSummary> PipelineAsync(StorageTarget target, RunSpec spec)
    {
        using var results = new ResultsTableStore(target);
        await using var host = await BenchmarkTaskHub.StartAsync(results.Target, [target], results, new TaskHubSettings { HubName = "bench" + Guid.NewGuid().ToString("N")[..8] });
        var started = await new RunStarter(host, TimeProvider.System).StartAsync(spec, "benchmark", null, default);
        await host.WaitForCompletionAsync(started.RunId!, default);
        var summary = (await RunResults.LoadAsync(host, results, started.RunId!, default))!;
        if (summary.Status != RunStatus.Completed || summary.Workloads.Any(w => !w.Verified.Matched))
        {
            throw new InvalidOperationException($"pipeline run {summary.RunId} ended {summary.Status}: {string.Join("; ", summary.Errors)}");
        }
        return summary;
    }

    internal static async Task<(double PeakMiB, long Entities)> CliRunAsync(string cliDll, string specFile, string connection)
    {
        // A folder of its own: the CLI refuses one that holds an earlier run's reports.
        string dir = Path.Combine(Path.GetTempPath(), "bench-mem-" + Guid.NewGuid().ToString("N")[..8]);
        string stdout = await RunCliAsync(cliDll, "run", "--spec", specFile, "--connection-string", connection, "--out", dir);
        string peakLine = stdout.Split('\n').Single(l => l.StartsWith("Driver peak working set:", StringComparison.Ordinal));
        double peak = double.Parse(peakLine.Split(':')[1].Trim().Split(' ')[0], CultureInfo.InvariantCulture);
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(dir, "summary.json")));
        long entities = json.RootElement.GetProperty("workloads")[0].GetProperty("entities").GetInt64();
        return (peak, entities);
    }

    internal static RunSpec ColdSpec(long entities, int batchSize) => new()
    {
        Scenario = "bench-cold",
        StartDelaySeconds = 3,
        TableInsert = new TableInsertSpec { EntityCount = entities, EntitySizeBytes = 1024, BatchSize = batchSize, PartitionCount = 16, Concurrency = 16, Slices = 1 },
    };

    internal static RunSpec ColdBlobSpec(int blobs) => new()
    {
        Scenario = "bench-cold",
        StartDelaySeconds = 3,
        BlobUpload = new BlobUploadSpec { BlobCount = blobs, BlobSizeBytes = 8L * 1024 * 1024, BlockSizeBytes = 1024 * 1024, ParallelBlocks = 4, Slices = 2 },
    };

    internal static string Amount(RunSpec spec) => spec.TableInsert is { } t ? $"{t.EntityCount:N0} entities" : $"{spec.BlobUpload!.BlobCount} blobs";

    /// <summary>One CLI process on its own Azurite (no connection string: the CLI starts one); throughput and CPU per unit from its summary.json.</summary>
    internal static async Task<(double Rate, double Cpu)> ColdRunAsync(string cliDll, RunSpec spec)
    {
        string dir = Path.Combine(Path.GetTempPath(), "bench-cold-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        string specFile = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(specFile, JsonSerializer.Serialize(spec, RunSpecParser.Options));
        await RunCliAsync(cliDll, "run", "--spec", specFile, "--out", dir);
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(dir, "summary.json")));
        var w = json.RootElement.GetProperty("workloads")[0];
        var t = w.GetProperty("throughput");
        return spec.TableInsert is null
            ? (t.GetProperty("megabytesPerSecond").GetDouble(), w.GetProperty("clientCpuMicrosecondsPerMegabyte").GetDouble())
            : (t.GetProperty("entitiesPerSecond").GetDouble(), w.GetProperty("clientCpuMicrosecondsPerEntity").GetDouble());
    }

    /// <summary>The CLI as its own process, as a user runs it; its stdout, or an exception when it failed.</summary>
    internal static async Task<string> RunCliAsync(string cliDll, params string[] args)
    {
        var psi = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var a in args.Prepend(cliDll))
        {
            psi.ArgumentList.Add(a);
        }
        using var process = Process.Start(psi)!;
        string stdout = await process.StandardOutput.ReadToEndAsync();
        await process.WaitForExitAsync();
        return process.ExitCode == 0 ? stdout : throw new InvalidOperationException("CLI run failed: " + stdout);
    }
}
