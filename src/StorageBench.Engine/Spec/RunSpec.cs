namespace StorageBench.Engine.Spec;

/// <summary>What to run. JSON, camelCase; every field has a documented default except the scenario.</summary>
public sealed record RunSpec
{
    /// <summary>Name runs are grouped and compared by (results table PartitionKey).</summary>
    public string Scenario { get; init; } = "";

    /// <summary>Seconds between planning and the synchronized start of all slices.</summary>
    public double StartDelaySeconds { get; init; } = 2;

    public ClientSettings Client { get; init; } = new();

    public TableInsertSpec? TableInsert { get; init; }

    public BlobUploadSpec? BlobUpload { get; init; }
}

/// <summary>Entity group transactions (or single inserts when batchSize is 1) into one table per run.</summary>
public sealed record TableInsertSpec
{
    public long EntityCount { get; init; } = 10_000;
    public int EntitySizeBytes { get; init; } = 1024;
    public int BatchSize { get; init; } = 100;
    /// <summary>Distinct partitions in the run; slices share them when there are fewer partitions than slices.</summary>
    public int PartitionCount { get; init; } = 1;
    /// <summary>In-flight requests per slice.</summary>
    public int Concurrency { get; init; } = 4;
    /// <summary>Parallel activities (instances in the seeds' terms).</summary>
    public int Slices { get; init; } = 1;
}

/// <summary>Put Block ×N in parallel, then Put Block List, per blob.</summary>
public sealed record BlobUploadSpec
{
    public int BlobCount { get; init; } = 4;
    public long BlobSizeBytes { get; init; } = 8L * 1024 * 1024;
    public int BlockSizeBytes { get; init; } = 4 * 1024 * 1024;
    /// <summary>In-flight Put Block requests per blob.</summary>
    public int ParallelBlocks { get; init; } = 4;
    public int Slices { get; init; } = 1;
}

/// <summary>HTTP and SDK client knobs; defaults keep failures visible.</summary>
public sealed record ClientSettings
{
    /// <summary>Off by default so throttling (503) is counted, not hidden by SDK retries.</summary>
    public bool SdkRetries { get; init; }
    public int MaxConnectionsPerServer { get; init; } = 1024;
    /// <summary>A request slower than this is counted as timedOut.</summary>
    public double RequestTimeoutSeconds { get; init; } = 30;
}
