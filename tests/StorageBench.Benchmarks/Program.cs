using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Json;
using StorageBench.Benchmarks;
using StorageBench.Cli;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;

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
if (await SectionModes.TryRunAsync(args))
{
    return;
}
// AzCopy for sections 5d and 5f (scripts/benchmark.sh installs it and sets this); without it they are left out.
string? azcopy = SectionModes.AzCopy;
string cliDll = args[0];
string output = args[1];
double seconds = args.Length > 2 ? double.Parse(args[2], CultureInfo.InvariantCulture) : 30;
var md = new StringBuilder();
var inv = CultureInfo.InvariantCulture;

var azurite = await AzuriteServer.StartAsync();
var target = StorageTarget.FromConnectionString(azurite.ConnectionString);
Console.WriteLine($"Azurite on {azurite.TablePort}; {seconds} s per throughput run");

// A discarded run first, so neither side of the comparison pays for JIT or Azurite's own warm-up.
await BenchRuns.TightLoopAsync(target, new RunSpec
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
        loop.Add(await BenchRuns.TightLoopAsync(target, spec));
        pipeline.Add((await BenchRuns.PipelineAsync(target, spec)).Workloads[0].Throughput.EntitiesPerSecond!.Value);
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
    var (peakMiB, entities) = await BenchRuns.CliRunAsync(cliDll, specFile, azurite.ConnectionString);
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
    var w = (await BenchRuns.PipelineAsync(target, new RunSpec
    {
        Scenario = "bench-cpu",
        StartDelaySeconds = 0.5,
        TableInsert = new TableInsertSpec { EntitySizeBytes = entitySize, BatchSize = batch, PartitionCount = 4, Concurrency = 8, Slices = 2, DurationSeconds = shortRun },
    })).Workloads[0];
    Console.WriteLine($"{label}: {w.ClientCpuMicrosecondsPerEntity:0.0} µs/entity");
    md.AppendLine(inv, $"| {label} | {w.Throughput.EntitiesPerSecond:0} entities/s | {w.ClientCpuSeconds:0.00} s | {w.ClientCpuMicrosecondsPerEntity:0.0} µs/entity |");
}
{
    var w = (await BenchRuns.PipelineAsync(target, new RunSpec
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
    var lags = (await BenchRuns.PipelineAsync(target, new RunSpec
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
md.AppendLine("Each run is its own CLI process (`scripts/build-cli.sh`: self-contained, composite ReadyToRun, TieredPGO off, a 10-ms tier-up delay, tier-up after 200 calls) with its own fresh Azurite, as `./scripts/bench.sh` runs; " +
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
    ("1 KB entities, EGT 100, 16 partitions, 16 in flight", BenchRuns.ColdSpec(40_000, 100), BenchRuns.ColdSpec(400_000, 100), true),
    ("1 KB single inserts, 16 in flight", BenchRuns.ColdSpec(4_000, 1), BenchRuns.ColdSpec(40_000, 1), false),
    ("8 MiB blobs in 1 MiB blocks, 2 slices × 4 blocks", BenchRuns.ColdBlobSpec(16), BenchRuns.ColdBlobSpec(160), false),
})
{
    var shortRuns = new List<(double Rate, double Cpu)>();
    var longRuns = new List<(double Rate, double Cpu)>();
    for (int round = 0; round < 2; round++)
    {
        shortRuns.Add(await BenchRuns.ColdRunAsync(cliDll, shortSpec));
        longRuns.Add(await BenchRuns.ColdRunAsync(cliDll, longSpec));
        Console.WriteLine($"{label} round {round}: short {shortRuns[^1]} long {longRuns[^1]}");
    }
    double rate = shortRuns.Average(r => r.Rate) / longRuns.Average(r => r.Rate), cpu = shortRuns.Average(r => r.Cpu) / longRuns.Average(r => r.Cpu);
    string unit = shortSpec.TableInsert is null ? "MB/s" : "/s";
    string Runs(List<(double Rate, double Cpu)> runs, Func<(double Rate, double Cpu), double> pick, string format) =>
        $"{runs.Average(pick).ToString(format, inv)} ({string.Join(", ", runs.Select(r => pick(r).ToString(format, inv)))})";
    md.AppendLine(inv, $"| {label} | {BenchRuns.Amount(shortSpec)} | {BenchRuns.Amount(longSpec)} | {Runs(shortRuns, r => r.Rate, "0.#")} {unit} | {Runs(longRuns, r => r.Rate, "0.#")} {unit} | " +
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
md.Append(await ReadDriverSection.WriteAsync(cliDll, AppContext.BaseDirectory, BenchRuns.SpecsBeside(output)));
if (azcopy is not null)
{
    md.AppendLine();
    md.Append(await DownloadPeersSection.WriteAsync(cliDll, azcopy, Environment.GetEnvironmentVariable("STORAGEBENCH_JS_PEER")));
}

string header = $"""
    # Benchmarks

    Written by `./scripts/benchmark.sh` on {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC. Machine: {Environment.ProcessorCount} cores,
    {GC.GetGCMemoryInfo().TotalAvailableMemoryBytes / 1_073_741_824.0:0} GiB, {RuntimeInformation.OSDescription}, {RuntimeInformation.FrameworkDescription};
    target: Azurite (in-memory, loopback) on the same machine. Every figure below comes from that run, except in the
    sections that name another (measured by hand, or by one of the script's single-section modes): those are kept as they were.

    """;
// Only the sections this run measured are replaced: hand-measured ones and the soak's stay where they are.
string sections = md.ToString() + syncMd + await EngineSections.WriteAsync(cliDll, output);
await File.WriteAllTextAsync(output, BenchmarksFile.Rewrite(File.Exists(output) ? await File.ReadAllTextAsync(output) : "", header, sections));
Console.WriteLine($"Wrote {output}");
