using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Json;
using StorageBench.Benchmarks;
using StorageBench.Cli;
using StorageBench.Engine.Planning;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Verification;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration;
using StorageBench.TaskHub;

// Usage: StorageBench.Benchmarks <path to storagebench.dll> <output markdown> [seconds=30]
// 1. Pipeline vs the engine's tightest loop (same spec, same Azurite), single partition and 16 partitions.
// 2. Driver peak working set for a run and a 10x longer run (separate CLI processes).
// 3. Client CPU per entity (1, 4, 64 KB) and per MB (4 MiB blocks).
// 4. Short runs against long runs (cold start).
// 5. The lean driver against the SDK driver: floor server, profile, Azurite side by side (LeanDriverSection); blob uploads
//    beside AzCopy (BlobPeersSection); the read and page paths (ReadDriverSection); downloads beside AzCopy (DownloadPeersSection).
// 6. How late 30 slices pass the synchronized start (a quiet-machine figure; printed after section 4).
// 7-8. What the engine costs at a run's ends, and CPU while a run waits (EngineSections; printed last).
// Helper processes of section 5: the floor server, and one floor workload looped under dotnet-trace.
if (args is ["floor-server"])
{
    using var floor = FloorSink.Start();
    Console.WriteLine(floor.ConnectionString);
    // Serves until the parent closes stdin.
    await Console.In.ReadToEndAsync();
    return;
}
if (args is ["floor-profile", var profiledDriver, var profiledCase, var floorConnection])
{
    var floorCase = FloorCase.All.Single(c => c.Key == profiledCase);
    var floorTarget = StorageTarget.FromConnectionString(floorConnection);
    // Long enough that start-up (JIT, type loading, the credential) is a small share of the samples.
    for (var profiled = Stopwatch.StartNew(); profiled.Elapsed < TimeSpan.FromSeconds(20);)
    {
        await FloorBenchmark.RunAsync(floorTarget, floorCase.With(profiledDriver, 10 * floorCase.SmallRun), settle: false);
    }
    return;
}
if (await EngineSections.TryRunAsync(args))
{
    return;
}
if (args is ["floor-capacity", var capacitySeconds, var capacityConnection])
{
    // Iterating on the floor: what a raw socket sender gets through it (section 5a measures it beside every figure).
    foreach (var measuredCase in FloorCase.All.Concat(FloorCase.Reads))
    {
        var (request, units) = await FloorCapacity.RequestOfAsync(measuredCase);
        Console.WriteLine($"{measuredCase.Key} ({request.Length} B, {units} units): " + FloorCapacity.Measure(FloorSink.AddressIn(capacityConnection), request, units, measuredCase.InFlight, TimeSpan.FromSeconds(double.Parse(capacitySeconds, CultureInfo.InvariantCulture))));
    }
    return;
}
if (args is ["floor-case", var caseDriver, var caseKey, var caseConnection])
{
    // Iterating on a driver: one floor case's marginal cost, three times, against a running floor-server.
    var caseTarget = StorageTarget.FromConnectionString(caseConnection);
    var measured = FloorCase.All.Concat(FloorCase.Reads).Single(c => c.Key == caseKey);
    await FloorBenchmark.RunAsync(caseTarget, measured.With(caseDriver, measured.SmallRun));
    for (int i = 0; i < 3; i++)
    {
        Console.WriteLine(await FloorBenchmark.MarginalAsync(caseTarget, measured, caseDriver));
    }
    return;
}
// AzCopy for section 5d (scripts/benchmark.sh installs it and sets this); without it 5d is left out.
string? azcopy = Environment.GetEnvironmentVariable("STORAGEBENCH_AZCOPY") is { Length: > 0 } azcopyPath ? azcopyPath : null;
if (args is ["driver", var driverCli, var driverOutput])
{
    // Section 5 alone (./scripts/benchmark.sh --driver-only), in place of the section 5 the file has; the other sections stay as they were measured.
    string section = await LeanDriverSection.WriteAsync(driverCli, AppContext.BaseDirectory);
    if (azcopy is not null)
    {
        section += "\n" + await BlobPeersSection.WriteAsync(driverCli, azcopy);
    }
    section += "\n" + await ReadDriverSection.WriteAsync(driverCli, AppContext.BaseDirectory, SpecsBeside(driverOutput));
    if (azcopy is not null)
    {
        section += "\n" + await DownloadPeersSection.WriteAsync(driverCli, azcopy, Environment.GetEnvironmentVariable("STORAGEBENCH_JS_PEER"));
    }
    int heading = section.IndexOf('\n') + 1;
    string dated = section[..heading] + $"\nMeasured by `./scripts/benchmark.sh --driver-only` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC; the sections outside 5 are from the full run the header names.\n" + section[heading..];
    string existing = File.Exists(driverOutput) ? await File.ReadAllTextAsync(driverOutput) : "";
    await File.WriteAllTextAsync(driverOutput, Splice(existing, "## 5. ", dated));
    return;
}
if (args is ["blob-peers", var peersCli, var peersOutput])
{
    // Section 5d alone (./scripts/benchmark.sh --blob-peers): storagebench beside AzCopy on Azurite.
    string section = await BlobPeersSection.WriteAsync(peersCli, azcopy ?? throw new InvalidOperationException("STORAGEBENCH_AZCOPY is not set: scripts/benchmark.sh installs AzCopy and sets it"));
    int heading = section.IndexOf('\n') + 1;
    string dated = section[..heading] + $"\nMeasured by `./scripts/benchmark.sh --blob-peers` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC.\n" + section[heading..];
    await File.WriteAllTextAsync(peersOutput, Splice(File.Exists(peersOutput) ? await File.ReadAllTextAsync(peersOutput) : "", "### 5d. ", dated));
    return;
}
if (args is ["read-peers", var readCli, var readOutput])
{
    // Sections 5e and 5f alone (./scripts/benchmark.sh --read-peers): the read and page paths, lean against SDK, and downloads beside AzCopy.
    string stamp = $"\nMeasured by `./scripts/benchmark.sh --read-peers` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC.\n";
    string reads = await ReadDriverSection.WriteAsync(readCli, AppContext.BaseDirectory, SpecsBeside(readOutput));
    string updated = Splice(File.Exists(readOutput) ? await File.ReadAllTextAsync(readOutput) : "", "### 5e. ", reads.Insert(reads.IndexOf('\n') + 1, stamp));
    await File.WriteAllTextAsync(readOutput, updated);
    if (azcopy is not null)
    {
        string downloads = await DownloadPeersSection.WriteAsync(readCli, azcopy, Environment.GetEnvironmentVariable("STORAGEBENCH_JS_PEER"));
        await File.WriteAllTextAsync(readOutput, Splice(updated, "### 5f. ", downloads.Insert(downloads.IndexOf('\n') + 1, stamp)));
    }
    return;
}
if (args is ["download-peers", var downloadCli, var downloadOutput] && azcopy is not null)
{
    // Section 5f alone (./scripts/benchmark.sh --download-peers): downloads beside AzCopy and the JS SDK.
    string downloads = await DownloadPeersSection.WriteAsync(downloadCli, azcopy, Environment.GetEnvironmentVariable("STORAGEBENCH_JS_PEER"));
    string stamp = $"\nMeasured by `./scripts/benchmark.sh --download-peers` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC.\n";
    await File.WriteAllTextAsync(downloadOutput, Splice(await File.ReadAllTextAsync(downloadOutput), "### 5f. ", downloads.Insert(downloads.IndexOf('\n') + 1, stamp)));
    return;
}
if (args is ["floor", var floorOutput])
{
    // Section 5 alone, for iterating on the driver: ./scripts/benchmark.sh runs it with everything else.
    await File.WriteAllTextAsync(floorOutput, await LeanDriverSection.WriteAsync(null, AppContext.BaseDirectory));
    return;
}
string cliDll = args[0];
string output = args[1];
double seconds = args.Length > 2 ? double.Parse(args[2], CultureInfo.InvariantCulture) : 30;
var md = new StringBuilder();
var inv = CultureInfo.InvariantCulture;

var azurite = await AzuriteServer.StartAsync();
var target = StorageTarget.FromConnectionString(azurite.ConnectionString);
Console.WriteLine($"Azurite on {azurite.TablePort}; {seconds} s per throughput run");

// A discarded run first, so neither side of the comparison pays for JIT or Azurite's own warm-up.
await TightLoopAsync(target, new RunSpec
{
    Scenario = "bench-warmup",
    TableInsert = new TableInsertSpec { EntitySizeBytes = 1024, BatchSize = 100, Concurrency = 8, Slices = 2, DurationSeconds = 5 },
});

// --- 1. pipeline vs tightest loop -------------------------------------------------------------
md.AppendLine("## 1. Pipeline overhead: orchestrated run vs the engine's tightest loop");
md.AppendLine();
md.AppendLine(string.Create(inv, $"Same spec, same Azurite; {seconds:0} s per run (1 s warm-up excluded), 1 KB entities, EGT of 100, 2 slices × 8 in flight. ") +
    "\"Loop\" calls `TableInsertSlice.RunAsync` for each slice directly; \"pipeline\" goes through `RunStarter` → orchestrator → activities (JSON boundary) → verification → results table. " +
    "After one discarded 5 s warm-up run, each row runs loop, pipeline, loop, pipeline; the table shows each mean and the single runs.");
md.AppendLine();
md.AppendLine("Azurite and the driver share 2 cores, so single runs vary by 10-20% (see the single runs in brackets): a ratio above 100% means the pipeline's overhead is below that noise, not that the pipeline is faster.");
md.AppendLine();
md.AppendLine("| partitions | loop entities/s | pipeline entities/s | pipeline / loop | target |");
md.AppendLine("|---:|---:|---:|---:|---|");
foreach (int partitions in new[] { 1, 16 })
{
    var spec = new RunSpec
    {
        Scenario = "bench-overhead",
        StartDelaySeconds = 0.5,
        TableInsert = new TableInsertSpec { EntitySizeBytes = 1024, BatchSize = 100, PartitionCount = partitions, Concurrency = 8, Slices = 2, DurationSeconds = seconds, WarmupSeconds = 1 },
    };
    var loop = new List<double>();
    var pipeline = new List<double>();
    for (int round = 0; round < 2; round++)
    {
        loop.Add(await TightLoopAsync(target, spec));
        pipeline.Add((await PipelineAsync(target, spec)).Workloads[0].Throughput.EntitiesPerSecond!.Value);
        Console.WriteLine($"partitions {partitions} round {round}: loop {loop[^1]:0} pipeline {pipeline[^1]:0} entities/s");
    }
    double ratio = pipeline.Average() / loop.Average();
    md.AppendLine(inv, $"| {partitions} | {loop.Average():0} ({string.Join(", ", loop.Select(v => v.ToString("0", inv)))}) | {pipeline.Average():0} ({string.Join(", ", pipeline.Select(v => v.ToString("0", inv)))}) | {ratio:P1} | ≥ 90% {(ratio >= 0.9 ? "holds" : "MISSED")} |");
}

// --- 2. memory vs run length ------------------------------------------------------------------
md.AppendLine();
md.AppendLine("## 2. Driver memory against run length");
md.AppendLine();
double shortRun = Math.Max(5, seconds / 3);
md.AppendLine(inv, $"Peak working set of the CLI process (`Driver peak working set`, from /proc via .NET; Azurite is a separate process), one process per run, " +
    $"1 KB entities, EGT of 100, 4 partitions, 2 slices × 8 in flight, for {shortRun:0} s and {10 * shortRun:0} s.");
md.AppendLine();
md.AppendLine("The longer run writes fewer entities per second: Azurite's in-memory store slows as it fills (its process, not the driver's).");
md.AppendLine();
md.AppendLine("| run length | entities written | peak working set | change | target |");
md.AppendLine("|---:|---:|---:|---:|---|");
double? baseline = null;
foreach (double length in new[] { shortRun, 10 * shortRun })
{
    string specFile = Path.Combine(Path.GetTempPath(), $"bench-mem-{length}.json");
    await File.WriteAllTextAsync(specFile, JsonSerializer.Serialize(new RunSpec
    {
        Scenario = "bench-memory",
        StartDelaySeconds = 0.5,
        TableInsert = new TableInsertSpec { EntitySizeBytes = 1024, BatchSize = 100, PartitionCount = 4, Concurrency = 8, Slices = 2, DurationSeconds = length },
    }, RunSpecParser.Options));
    var (peakMiB, entities) = await CliRunAsync(cliDll, specFile, azurite.ConnectionString);
    baseline ??= peakMiB;
    double change = peakMiB / baseline.Value - 1;
    Console.WriteLine($"{length} s: {peakMiB:0.0} MiB, {entities} entities");
    md.AppendLine(inv, $"| {length:0} s | {entities:N0} | {peakMiB:0.0} MiB | {change:+0.0%;-0.0%;0.0%} | {(length == shortRun ? "baseline" : change <= 0.10 ? "within 10%: holds" : "over 10%: MISSED")} |");
}

// --- 3. client CPU per operation --------------------------------------------------------------
md.AppendLine();
md.AppendLine("## 3. Client CPU per entity and per MB");
md.AppendLine();
md.AppendLine(string.Create(inv, $"Driver process CPU (user + system) from the first slice start to the last slice end, through the pipeline, {shortRun:0} s each, ") +
    "2 slices; includes the Azure SDK's serialization and HTTP stack. Azurite runs on the same 2 cores, so the rates are Azurite's, not Azure's.");
md.AppendLine();
md.AppendLine("| workload | throughput | client CPU | per unit |");
md.AppendLine("|---|---:|---:|---:|");
foreach (var (label, entitySize, batch) in new[] { ("1 KB entities, EGT 100", 1024, 100), ("4 KB entities, EGT 100", 4096, 100), ("64 KB entities, EGT 32", 65536, 32) })
{
    var w = (await PipelineAsync(target, new RunSpec
    {
        Scenario = "bench-cpu",
        StartDelaySeconds = 0.5,
        TableInsert = new TableInsertSpec { EntitySizeBytes = entitySize, BatchSize = batch, PartitionCount = 4, Concurrency = 8, Slices = 2, DurationSeconds = shortRun },
    })).Workloads[0];
    Console.WriteLine($"{label}: {w.ClientCpuMicrosecondsPerEntity:0.0} µs/entity");
    md.AppendLine(inv, $"| {label} | {w.Throughput.EntitiesPerSecond:0} entities/s | {w.ClientCpuSeconds:0.00} s | {w.ClientCpuMicrosecondsPerEntity:0.0} µs/entity |");
}
{
    var w = (await PipelineAsync(target, new RunSpec
    {
        Scenario = "bench-cpu",
        StartDelaySeconds = 0.5,
        BlobUpload = new BlobUploadSpec { BlobSizeBytes = 32L * 1024 * 1024, BlockSizeBytes = 4 * 1024 * 1024, ParallelBlocks = 8, Slices = 2, DurationSeconds = shortRun },
    })).Workloads[0];
    Console.WriteLine($"4 MiB blocks: {w.ClientCpuMicrosecondsPerMegabyte:0} µs/MB");
    md.AppendLine(inv, $"| 4 MiB blocks, 32 MiB blobs, 8 in flight | {w.Throughput.MegabytesPerSecond:0.0} MB/s | {w.ClientCpuSeconds:0.00} s | {w.ClientCpuMicrosecondsPerMegabyte:0} µs/MB |");
}

// --- 6. synchronized start (printed after section 4; measured here, on sections 1-3's Azurite) -----
// How late slices pass the orchestrator's start instant depends on how busy the machine is: a quiet-machine
// figure, so it lives here, not in the test suite (SynchronizedStartTests checks what the product controls).
var syncMd = new StringBuilder();
{
    var lags = (await PipelineAsync(target, new RunSpec
    {
        Scenario = "bench-sync-start",
        StartDelaySeconds = 4,
        TableInsert = new TableInsertSpec { EntityCount = 3000, EntitySizeBytes = 64, BatchSize = 100, PartitionCount = 30, Concurrency = 1, Slices = 30 },
    })).Workloads[0].PerSlice.Select(s => s.StartLagSeconds * 1000).Order().ToList();
    Console.WriteLine($"synchronized start: 30 slices, start lag median {lags[lags.Count / 2]:0} ms, max {lags[^1]:0} ms");
    syncMd.AppendLine();
    syncMd.AppendLine("## 6. Synchronized start");
    syncMd.AppendLine();
    syncMd.AppendLine("30 slices (1 in flight each, 100 entities of 64 B per slice), start delay 4 s: how late each slice passed the instant the orchestrator chose (`startLagSeconds`). " +
        "It depends on the machine's load, so it is measured here on a quiet machine; the test suite checks only that every slice gets the same instant and none sends before it.");
    syncMd.AppendLine();
    syncMd.AppendLine("| slices | median start lag | max start lag | target |");
    syncMd.AppendLine("|---:|---:|---:|---|");
    syncMd.AppendLine(inv, $"| 30 | {lags[lags.Count / 2]:0} ms | {lags[^1]:0} ms | max < 250 ms: {(lags[^1] < 250 ? "met" : "NOT met")} |");
}

// --- 4. a short run as fast as a long one -------------------------------------------------------
// Sections 1-3's Azurite holds millions of entities in memory by now: its garbage collector must not
// take CPU from the cold runs, which each start their own.
await azurite.DisposeAsync();
md.AppendLine();
md.AppendLine("## 4. Short runs against long runs (cold start)");
md.AppendLine();
md.AppendLine("Each run is its own CLI process (`scripts/build-cli.sh`: ReadyToRun, TieredPGO off, no tier-up delay) with its own fresh Azurite, as `./scripts/bench.sh` runs; " +
    "slices prime their request path before the synchronized start (`client.primeRounds` 16, start delay 3 s). For each workload a short and a 10x " +
    "longer run with the same settings alternate, twice; the ratios compare the means (single runs in brackets). Throughput is entities/s, or MB/s of " +
    "committed blobs; CPU is the driver's per entity, or per MB staged. Azurite's in-memory store slows as it fills, which lowers the long runs' throughput. " +
    "The targets are for the EGT run; the single-insert and blob rows are there for reference, so no path gets slower unnoticed.");
md.AppendLine();
md.AppendLine("| workload | short | long | short throughput | long throughput | ratio (target ≥ 0.95) | short CPU | long CPU | ratio (target ≤ 1.2) |");
md.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
// The targets are for the EGT run (the default workload); single inserts and blobs are kept beside it for reference.
foreach (var (label, shortSpec, longSpec, targeted) in new[]
{
    ("1 KB entities, EGT 100, 16 partitions, 16 in flight", ColdSpec(40_000, 100), ColdSpec(400_000, 100), true),
    ("1 KB single inserts, 16 in flight", ColdSpec(4_000, 1), ColdSpec(40_000, 1), false),
    ("8 MiB blobs in 1 MiB blocks, 2 slices × 4 blocks", ColdBlobSpec(16), ColdBlobSpec(160), false),
})
{
    var shortRuns = new List<(double Rate, double Cpu)>();
    var longRuns = new List<(double Rate, double Cpu)>();
    for (int round = 0; round < 2; round++)
    {
        shortRuns.Add(await ColdRunAsync(cliDll, shortSpec));
        longRuns.Add(await ColdRunAsync(cliDll, longSpec));
        Console.WriteLine($"{label} round {round}: short {shortRuns[^1]} long {longRuns[^1]}");
    }
    double rate = shortRuns.Average(r => r.Rate) / longRuns.Average(r => r.Rate), cpu = shortRuns.Average(r => r.Cpu) / longRuns.Average(r => r.Cpu);
    string unit = shortSpec.TableInsert is null ? "MB/s" : "/s";
    string Runs(List<(double Rate, double Cpu)> runs, Func<(double Rate, double Cpu), double> pick, string format) =>
        $"{runs.Average(pick).ToString(format, inv)} ({string.Join(", ", runs.Select(r => pick(r).ToString(format, inv)))})";
    md.AppendLine(inv, $"| {label} | {Amount(shortSpec)} | {Amount(longSpec)} | {Runs(shortRuns, r => r.Rate, "0.#")} {unit} | {Runs(longRuns, r => r.Rate, "0.#")} {unit} | " +
        $"{rate:0.00} {(!targeted ? "(reference)" : rate >= 0.95 ? "holds" : "MISSED")} | {Runs(shortRuns, r => r.Cpu, "0.#")} µs | {Runs(longRuns, r => r.Cpu, "0.#")} µs | " +
        $"{cpu:0.00} {(!targeted ? "(reference)" : cpu <= 1.2 ? "holds" : "MISSED")} |");
}

// --- 5. lean driver against the SDK driver ------------------------------------------------------
md.AppendLine();
md.Append(await LeanDriverSection.WriteAsync(cliDll, AppContext.BaseDirectory));
if (azcopy is not null)
{
    md.AppendLine();
    md.Append(await BlobPeersSection.WriteAsync(cliDll, azcopy));
}
md.AppendLine();
md.Append(await ReadDriverSection.WriteAsync(cliDll, AppContext.BaseDirectory, SpecsBeside(output)));
if (azcopy is not null)
{
    md.AppendLine();
    md.Append(await DownloadPeersSection.WriteAsync(cliDll, azcopy, Environment.GetEnvironmentVariable("STORAGEBENCH_JS_PEER")));
}

string header = $"""
    # Benchmarks

    Written by `./scripts/benchmark.sh` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC. Machine: {Environment.ProcessorCount} cores,
    {GC.GetGCMemoryInfo().TotalAvailableMemoryBytes / 1_073_741_824.0:0} GiB, {RuntimeInformation.OSDescription}, {RuntimeInformation.FrameworkDescription};
    target: Azurite (in-memory, loopback) on the same machine. Every figure below comes from that run.


    """;
await File.WriteAllTextAsync(output, header + md + syncMd + await EngineSections.WriteAsync(cliDll, output));
Console.WriteLine($"Wrote {output}");

// Replaces the part of a markdown file that starts with the heading line `heading` ("## 5. ", "### 5d. ") and runs
// to the next heading of the same or a higher level; a missing "### 5d." goes at the end of its section 5.
static string Splice(string existing, string heading, string replacement)
{
    string[] ends = heading.StartsWith("###", StringComparison.Ordinal) ? ["\n## ", "\n### "] : ["\n## "];
    int at = existing.IndexOf("\n" + heading, StringComparison.Ordinal);
    if (at < 0 && heading.StartsWith("###", StringComparison.Ordinal) && existing.IndexOf("\n## 5. ", StringComparison.Ordinal) is int parent and >= 0)
    {
        int next = existing.IndexOf("\n## ", parent + 1, StringComparison.Ordinal);
        at = next < 0 ? existing.Length : next;
        return existing[..at].TrimEnd() + "\n\n" + replacement.TrimEnd() + "\n" + existing[at..];
    }
    if (at < 0)
    {
        return existing.TrimEnd() + "\n\n" + replacement;
    }
    int end = ends.Select(e => existing.IndexOf(e, at + 1, StringComparison.Ordinal)).Where(i => i >= 0).DefaultIfEmpty(existing.Length).Min();
    return existing[..(at + 1)] + replacement.TrimEnd() + "\n" + existing[end..];
}

// The repository's specs/ folder, beside the BENCHMARKS.md being written.
static string SpecsBeside(string output) => Path.Combine(Path.GetDirectoryName(Path.GetFullPath(output))!, "specs");

static async Task<double> TightLoopAsync(StorageTarget target, RunSpec spec)
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

static async Task<RunSummary> PipelineAsync(StorageTarget target, RunSpec spec)
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

static async Task<(double PeakMiB, long Entities)> CliRunAsync(string cliDll, string specFile, string connection)
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

static RunSpec ColdSpec(long entities, int batchSize) => new()
{
    Scenario = "bench-cold",
    StartDelaySeconds = 3,
    TableInsert = new TableInsertSpec { EntityCount = entities, EntitySizeBytes = 1024, BatchSize = batchSize, PartitionCount = 16, Concurrency = 16, Slices = 1 },
};

static RunSpec ColdBlobSpec(int blobs) => new()
{
    Scenario = "bench-cold",
    StartDelaySeconds = 3,
    BlobUpload = new BlobUploadSpec { BlobCount = blobs, BlobSizeBytes = 8L * 1024 * 1024, BlockSizeBytes = 1024 * 1024, ParallelBlocks = 4, Slices = 2 },
};

static string Amount(RunSpec spec) => spec.TableInsert is { } t ? $"{t.EntityCount:N0} entities" : $"{spec.BlobUpload!.BlobCount} blobs";

// One CLI process on its own Azurite (no connection string: the CLI starts one); throughput and CPU per unit from its summary.json.
static async Task<(double Rate, double Cpu)> ColdRunAsync(string cliDll, RunSpec spec)
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

// The CLI as its own process, as a user runs it; its stdout, or an exception when it failed.
static async Task<string> RunCliAsync(string cliDll, params string[] args)
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
