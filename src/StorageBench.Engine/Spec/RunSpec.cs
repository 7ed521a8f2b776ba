using StorageBench.Engine.Workloads.BlobDownload;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.PageBlobUpload;
using StorageBench.Engine.Workloads.TableInsert;
using StorageBench.Engine.Workloads.TableRead;
using System.Text.Json.Serialization;

namespace StorageBench.Engine.Spec;

/// <summary>What to run. JSON, camelCase; every field has a documented default except the scenario.</summary>
public sealed record RunSpec
{
    /// <summary>Name runs are grouped and compared by (results table PartitionKey).</summary>
    public string Scenario { get; init; } = "";

    /// <summary>Seconds between planning and the synchronized start of all slices.</summary>
    public double StartDelaySeconds { get; init; } = 2;

    /// <summary>
    /// The largest share of the planned work (entities, or blobs) a run may fail to store and still be
    /// Completed; above it the run is Failed. Not applied to saturation-search steps, which are judged
    /// by their own bounds.
    /// </summary>
    public double MaxUnstoredShare { get; init; } = 0.01;

    /// <summary>
    /// A timed slice longer than this runs as a chain of segments of at most this many seconds, each its own activity, so a
    /// recycled host or a killed process loses one segment (docs/spec.md); null: <see cref="DefaultSegmentSeconds"/>.
    /// </summary>
    public double? SegmentSeconds { get; init; }

    /// <summary>Five minutes: half of Flex Consumption's shortest recycle grace (10 minutes), and 288 segments for a 24-h slice.</summary>
    public const double DefaultSegmentSeconds = 300;

    public ClientSettings Client { get; init; } = new();

    public TableInsertSpec? TableInsert { get; init; }

    public BlobUploadSpec? BlobUpload { get; init; }

    /// <summary>Page blobs: created at their size, then Put Page in parallel ranges (a spec with blobUpload too compares page and block).</summary>
    public PageBlobUploadSpec? PageBlobUpload { get; init; }

    /// <summary>Point reads or Int64 range queries of entities the workload seeds itself.</summary>
    public TableReadSpec? TableRead { get; init; }

    /// <summary>Get Blob of whole blobs or ranges, of blobs the workload seeds itself.</summary>
    public BlobDownloadSpec? BlobDownload { get; init; }

    /// <summary>Append blobs created empty and grown by Append Block, one append in flight per blob.</summary>
    public Workloads.AppendBlobUpload.AppendBlobUploadSpec? AppendBlobUpload { get; init; }

    /// <summary>Run the workloads once per value of one parameter (e.g. tableInsert.batchSize [1, 4, 16, 32, 64, 100]).</summary>
    public SweepSpec? Sweep { get; init; }

    /// <summary>Step one parameter up until throttling or p99 passes a bound; report the highest sustainable value.</summary>
    public SaturationSpec? Saturation { get; init; }

    /// <summary>How many of a step's slices one worker process may run at once; null: every worker up takes an even share (docs/architecture.md, "Placement").</summary>
    public PlacementSpec? Placement { get; init; }
}

/// <summary>
/// Where a step's slices run: at most <see cref="SlicesPerWorker"/> of them at once in one worker process (a
/// `storagebench worker`, the CLI's own worker, or a Function App instance's worker), so a run asking for 8 machines gets 8.
/// </summary>
public sealed record PlacementSpec
{
    public int SlicesPerWorker { get; init; } = 1;
}

/// <param name="Parameter">A numeric field's path in the spec, e.g. "tableInsert.batchSize".</param>
public sealed record SweepSpec(string Parameter, double[] Values);

/// <summary>
/// Steps Parameter from Start, multiplying by Factor (or adding Step when Step is above 0), up to Max.
/// A step breaks the bound when its share of failed requests (throttled, timed out or any other
/// failure) exceeds MaxFailedShare, when no request succeeds, or when its p99
/// exceeds MaxP99Ms; the search stops there. It also stops past the knee: when a step's throughput
/// grew by less than MinThroughputGrowth of the parameter's growth (doubling concurrency must add at
/// least 10 % by default), the load only queued.
/// </summary>
public sealed record SaturationSpec
{
    public string Parameter { get; init; } = "tableInsert.concurrency";
    public double Start { get; init; } = 1;
    public double Factor { get; init; } = 2;
    public double Step { get; init; }
    public double Max { get; init; } = 256;
    public double MaxFailedShare { get; init; } = 0.01;
    public double MaxP99Ms { get; init; } = 1_000;

    /// <summary>
    /// A step is past the knee when its throughput grew by less than this share of the parameter's growth
    /// over the previous step (factor 2: less than +10 %), while its latency rose instead (Little's law:
    /// requests in flight = throughput × mean latency). 0 turns the rule off.
    /// </summary>
    public double MinThroughputGrowth { get; init; } = 0.10;

    /// <summary>Every value the search may try, in order.</summary>
    public IEnumerable<double> Values()
    {
        for (double v = Start; v <= Max; v = Step > 0 ? v + Step : v * Factor)
        {
            yield return v;
        }
    }
}

/// <summary>
/// How long a workload runs and which of its operations count. Shared by every workload, and written after all of a
/// section's own fields (order 3: after <see cref="Workloads.BlobWriteSpec"/>'s slices and verifyContent).
/// </summary>
public abstract record WorkloadSpec
{
    /// <summary>0: run the fixed count (entityCount / blobCount). Above 0: run this long, however many that is.</summary>
    [JsonPropertyOrder(3)]
    public double DurationSeconds { get; init; }

    /// <summary>Operations started in the first seconds of each slice are done but left out of the statistics.</summary>
    [JsonPropertyOrder(3)]
    public double WarmupSeconds { get; init; }

    /// <summary>The first operations of each slice are done but left out of the statistics.</summary>
    [JsonPropertyOrder(3)]
    public long WarmupOperations { get; init; }
}

/// <summary>HTTP and SDK client knobs; defaults keep failures visible.</summary>
public sealed record ClientSettings
{
    /// <summary>Off by default so throttling (503) is counted, not hidden by SDK retries.</summary>
    public bool SdkRetries { get; init; }
    public int MaxConnectionsPerServer { get; init; } = 1024;
    /// <summary>Send "Expect: 100-continue" (the seeds turned it off; .NET sends it only when asked).</summary>
    public bool Expect100Continue { get; init; }
    /// <summary>False: a new connection per request (no keep-alive reuse).</summary>
    public bool ConnectionPooling { get; init; } = true;
    /// <summary>A request slower than this is counted as timedOut.</summary>
    public double RequestTimeoutSeconds { get; init; } = 30;
    /// <summary>
    /// Before the synchronized start, every in-flight loop of a slice (up to 16) sends this many rounds of the
    /// workload's own kind of request, small and leaving nothing behind (a transaction of one entity inserted then
    /// deleted, a read or query of one entity, a 4 KiB block, page or range), so the first measured second runs warm:
    /// compiled code, open connections; never a share of the workload's own bytes. Untimed and outside the CPU figures;
    /// it stops 250 ms before the start instant, so give it time with startDelaySeconds. 0: one probe request only.
    /// </summary>
    public int PrimeRounds { get; init; } = 2;

    /// <summary>
    /// Who builds and sends the measured requests (table inserts, Put Block, Put Block List): "lean" (the
    /// default), hand-written requests equal on the wire to the SDK's at a fraction of its CPU; or "sdk",
    /// the Azure SDK clients, to measure what the SDK itself costs. See docs/driver.md.
    /// </summary>
    public string Driver { get; init; } = LeanDriver;

    public const string LeanDriver = "lean";
    public const string SdkDriver = "sdk";

    /// <summary>The lean driver's requests, made by <paramref name="lean"/>; null on the SDK driver, whose clients then send every request.</summary>
    public T? LeanOrNull<T>(Func<T> lean) where T : class => Driver == SdkDriver ? null : lean();
}
