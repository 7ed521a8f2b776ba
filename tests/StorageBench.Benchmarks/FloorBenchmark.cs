using System.Diagnostics;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads;
using StorageBench.Engine.Workloads.TableRead;

namespace StorageBench.Benchmarks;

/// <summary>One floor workload: what it sends and how its cost is expressed.</summary>
public sealed record FloorCase(string Key, string Label, RunSpec Spec, long SmallRun, string Unit)
{
    public static readonly FloorCase[] All =
    [
        new("egt", "1 KB entities, EGT 100, 16 partitions, 16 in flight",
            Table(entities: 0, batchSize: 100), 40_000, "entity"),
        new("single", "1 KB single inserts, 16 partitions, 32 in flight",
            Table(entities: 0, batchSize: 1, concurrency: 32), 4_000, "entity"),
        new("blob", "4 MiB blocks × 8 in flight, 32 MiB blobs",
            new RunSpec { Scenario = "floor", BlobUpload = new BlobUploadSpec { BlobSizeBytes = 32L << 20, BlockSizeBytes = 4 << 20, ParallelBlocks = 8, BlockRetries = 0 } }, 48, "MB"),
    ];

    /// <summary>
    /// The read and page paths (issue 35), measured as the cases above but in their own subsection (5e). A tableRead case
    /// reads the floor's table <see cref="FloorSink.ReadTableName"/>, whose entities the sink answers as tableRead seeded them;
    /// a blobDownload case's blobs are seeded on the floor once (one Put Blob each, before any measured run).
    /// </summary>
    public static readonly FloorCase[] Reads =
    [
        new("read-point", "tableRead point reads, 1 KB entities, 16 partitions, 16 in flight",
            new RunSpec { Scenario = "floor", TableRead = new TableReadSpec { EntityCount = 16_000, EntitySizeBytes = 1024, PartitionCount = 16, Operation = TableReadSpec.Point, Concurrency = 16 } },
            4_000, "entity"),
        new("read-query", "tableRead query pages of 100 × 1 KB entities, 16 partitions, 16 in flight",
            new RunSpec { Scenario = "floor", TableRead = new TableReadSpec { EntityCount = 16_000, EntitySizeBytes = 1024, PartitionCount = 16, Operation = TableReadSpec.Query, QueryEntities = 100, Concurrency = 16 } },
            400, "entity"),
        new("download", "blobDownload whole 32 MiB blobs, 8 in flight",
            new RunSpec { Scenario = "floor", BlobDownload = new BlobDownloadSpec { BlobCount = 8, BlobSizeBytes = 32L << 20, ParallelRanges = 8 } }, 16, "MB"),
        new("download-ranges", "blobDownload 4 MiB ranges of 32 MiB blobs, 8 in flight",
            new RunSpec { Scenario = "floor", BlobDownload = new BlobDownloadSpec { BlobCount = 8, BlobSizeBytes = 32L << 20, RangeSizeBytes = 4 << 20, ParallelRanges = 8 } }, 16, "MB"),
        new("page", "pageBlobUpload 4 MiB Put Page × 8 in flight, 32 MiB page blobs",
            new RunSpec { Scenario = "floor", PageBlobUpload = new PageBlobUploadSpec { BlobSizeBytes = 32L << 20, PageRangeBytes = 4 << 20, ParallelRanges = 8, Retries = 0 } }, 16, "MB"),
    ];

    /// <summary>Requests in flight: the floor's capacity is measured on as many connections.</summary>
    public int InFlight => Spec.TableInsert?.Concurrency ?? Spec.BlobUpload?.ParallelBlocks ?? Spec.TableRead?.Concurrency ?? Spec.BlobDownload?.ParallelRanges ?? Spec.PageBlobUpload!.ParallelRanges;

    private static RunSpec Table(long entities, int batchSize, int concurrency = 16) => new()
    {
        Scenario = "floor",
        TableInsert = new TableInsertSpec { EntityCount = entities, EntitySizeBytes = 1024, BatchSize = batchSize, PartitionCount = 16, Concurrency = concurrency },
    };

    /// <summary>This case with <paramref name="amount"/> entities (or blobs) on <paramref name="driver"/>, no priming rounds.</summary>
    public RunSpec With(string driver, long amount, bool verifyContent = false) => Spec with
    {
        Client = new ClientSettings { Driver = driver, PrimeRounds = 0 },
        TableInsert = Spec.TableInsert is { } t ? t with { EntityCount = amount } : null,
        BlobUpload = Spec.BlobUpload is { } b ? b with { BlobCount = (int)amount, VerifyContent = verifyContent } : null,
        TableRead = Spec.TableRead is { } r ? r with { ReadCount = amount } : null,
        BlobDownload = Spec.BlobDownload is { } d ? d with { DownloadCount = amount } : null,
        PageBlobUpload = Spec.PageBlobUpload is { } p ? p with { BlobCount = (int)amount } : null,
    };
}

/// <summary>Driver CPU and allocation of one run against the floor server.</summary>
/// <param name="SystemSeconds">The kernel's share of <paramref name="CpuSeconds"/> (socket sends on loopback copy every byte).</param>
public sealed record FloorRun(double CpuSeconds, double SystemSeconds, long AllocatedBytes, double Units, double WallSeconds, long Failed);

/// <summary>A driver's marginal cost per unit on the floor, and the large run's rate.</summary>
public sealed record Marginal(double MicrosPerUnit, double SystemMicrosPerUnit, double BytesPerUnit, double UnitsPerSecond);

/// <summary>
/// The driver's own cost: a workload run in this process against a <see cref="FloorServer"/> in another
/// one, so the process CPU and the bytes this process allocated are the driver's alone. The figures are
/// marginal — (cost of a 3x run − cost of a 1x run) / the 2x more units — so the fixed cost of a run
/// (clients, connections, plans, the probe request) cancels out and only the per-request path is left.
/// </summary>
public static class FloorBenchmark
{
    /// <param name="settle">Collect garbage first, so the allocation delta is this run's (off under the profiler: the collection would be profiled).</param>
    public static async Task<FloorRun> RunAsync(StorageTarget target, RunSpec spec, bool settle = true)
    {
        string runId = Planner.NewRunId(DateTime.UtcNow);
        string stepId = Planner.StepId(runId, 0);
        var process = Process.GetCurrentProcess();
        if (settle)
        {
            GC.Collect();
        }
        long allocated = GC.GetTotalAllocatedBytes(precise: true);
        process.Refresh();
        double cpu = process.TotalProcessorTime.TotalSeconds, system = process.PrivilegedProcessorTime.TotalSeconds;
        var wall = Stopwatch.StartNew();
        SliceResult slice;
        if (WorkloadList.In(spec).Single().Room is var room && room is TableReadRoom or BlobDownloadRoom or PageBlobUploadRoom)
        {
            slice = await RunRoomAsync(room, target, spec, runId, stepId, process, () => (cpu, system, allocated) =
                (process.TotalProcessorTime.TotalSeconds, process.PrivilegedProcessorTime.TotalSeconds, GC.GetTotalAllocatedBytes(precise: true)), wall);
        }
        else if (spec.TableInsert is { } t)
        {
            var plan = TableInsertRoom.PlanSlices(runId, stepId, "floor", t, spec.Client, DateTime.UtcNow).Single();
            slice = await TableInsertSlice.RunAsync(plan, target, TimeProvider.System, default);
        }
        else
        {
            var plan = BlobUploadRoom.PlanSlices(runId, stepId, "floor", spec.BlobUpload!, spec.Client, DateTime.UtcNow).Single();
            slice = await BlobUploadSlice.RunAsync(plan, target, TimeProvider.System, default);
        }
        wall.Stop();
        process.Refresh();
        double cpuUsed = process.TotalProcessorTime.TotalSeconds - cpu, systemUsed = process.PrivilegedProcessorTime.TotalSeconds - system;
        long bytes = GC.GetTotalAllocatedBytes(precise: true) - allocated;
        double units = (slice.Units + slice.WarmupUnits) / (spec.TableInsert is not null || spec.TableRead is not null ? 1.0 : 1e6);
        long failed = slice.Counts.Operations - slice.Counts.Succeeded + slice.Mismatches + slice.WrongDownloads;
        return new FloorRun(cpuUsed, systemUsed, bytes, units, wall.Elapsed.TotalSeconds, failed);
    }

    private static readonly HashSet<(StorageTarget, BlobDownloadSpec)> Seeded = [];

    /// <summary>
    /// A read or page case through its room's plan and slice (as the activities run it). Seeding, the first time a
    /// target is read in this process, comes before <paramref name="restart"/> takes the CPU and allocation readings.
    /// </summary>
    private static async Task<SliceResult> RunRoomAsync(Workload room, StorageTarget target, RunSpec spec, string runId, string stepId, Process process, Action restart, Stopwatch wall)
    {
        string targetName = spec.TableRead is { } read ? FloorSink.ReadTableName(read.EntitySizeBytes) : room is BlobDownloadRoom ? "floordownload" : "floorpage";
        if (room is BlobDownloadRoom && Seeded.Add((target, spec.BlobDownload!)))
        {
            await room.SeedAsync(room.Plan(new StepPlan(runId, stepId, targetName, DateTime.UtcNow), spec).Single(), target, default);
        }
        // Its start instant is now: the slice does not wait in the measured window.
        var order = room.Plan(new StepPlan(runId, stepId, targetName, DateTime.UtcNow), spec).Single();
        process.Refresh();
        restart();
        wall.Restart();
        return await room.RunSliceAsync(order, target, TimeProvider.System, default, null, null);
    }

    /// <summary>Marginal µs of CPU (and of it the kernel's) and bytes allocated per unit, and units per second of the large run.</summary>
    public static async Task<Marginal> MarginalAsync(StorageTarget target, FloorCase floorCase, string driver, bool verifyContent = false)
    {
        var small = await RunAsync(target, floorCase.With(driver, floorCase.SmallRun, verifyContent));
        var large = await RunAsync(target, floorCase.With(driver, 3 * floorCase.SmallRun, verifyContent));
        if (small.Failed + large.Failed > 0)
        {
            throw new InvalidOperationException($"floor {floorCase.Key} on {driver}: {small.Failed + large.Failed} requests failed against the floor server");
        }
        double units = large.Units - small.Units;
        return new((large.CpuSeconds - small.CpuSeconds) * 1e6 / units, (large.SystemSeconds - small.SystemSeconds) * 1e6 / units,
            (large.AllocatedBytes - small.AllocatedBytes) / units, large.Units / large.WallSeconds);
    }
}
