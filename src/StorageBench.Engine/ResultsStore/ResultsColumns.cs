namespace StorageBench.Engine.ResultsStore;

/// <summary>
/// The column names of the results tables, each written out once: the rows are written and read
/// (<see cref="RunRows"/>, <see cref="SliceRows"/>), filtered (<see cref="RunFilter"/>) and judged
/// (<see cref="RegressionInput"/>) by these names, and the KQL queries and docs name the same columns.
/// </summary>
public static class ResultsColumns
{
    // Every run and step row.
    public const string RunId = "RunId";
    public const string Status = "Status";
    public const string StartedUtc = "StartedUtc";
    public const string EndedUtc = "EndedUtc";
    public const string TargetKind = "TargetKind";
    public const string Host = "Host";
    public const string Instances = "Instances";
    public const string Errors = "Errors";
    public const string Notes = "Notes";
    public const string Unmeasured = "Unmeasured";
    public const string LoadAverageStart = "LoadAverageStart";
    public const string LoadAverageEnd = "LoadAverageEnd";
    public const string OtherProcessesCpuShare = "OtherProcessesCpuShare";
    public const string ToolVersion = "ToolVersion";
    public const string ToolCommit = "ToolCommit";
    public const string EmulatorVersion = "EmulatorVersion";

    // A step of a sweep or search (and the sweep's own row: its parameter).
    public const string StepParameter = "StepParameter";
    public const string StepValue = "StepValue";

    // The run's own row.
    public const string Spec = "Spec";
    public const string TargetAccounts = "TargetAccounts";
    public const string ProcessorCount = "ProcessorCount";
    public const string RegressionVerdict = "RegressionVerdict";
    public const string RegressionReason = "RegressionReason";
    public const string Steps = "Steps";
    public const string SaturationReason = "SaturationReason";
    public const string SaturationStoppedBy = "SaturationStoppedBy";
    public const string SaturationHighest = "SaturationHighest";
    public const string SaturationKnee = "SaturationKnee";

    // The blob workload's figures that tables do not have.
    public const string BlobsFailed = "BlobsFailed";
    public const string BlobBytesSent = "BlobBytesSent";
    public const string BlobBytesSentForFailedBlobs = "BlobBytesSentForFailedBlobs";
    public const string BlobBlockMegabytesPerSecond = "BlobBlockMegabytesPerSecond";

    /// <summary>The columns of a slice execution's row (the slices table).</summary>
    public static class Slice
    {
        public const string StepId = "StepId";
        public const string Workload = "Workload";
        public const string SliceIndex = "SliceIndex";
        public const string Attempt = "Attempt";
        public const string TargetAccount = "TargetAccount";
        public const string Host = "Host";
        public const string Worker = "Worker";
        public const string StartedUtc = "StartedUtc";
        public const string EndedUtc = "EndedUtc";
        public const string Operations = "Operations";
        public const string Succeeded = "Succeeded";
        public const string Failed = "Failed";
        public const string Throttled = "Throttled";
        public const string TimedOut = "TimedOut";
        public const string Units = "Units";
        public const string DurationSeconds = "DurationSeconds";
        public const string StartLagSeconds = "StartLagSeconds";
        public const string Canceled = "Canceled";
        public const string LatencyHistogram = "LatencyHistogram";
    }

    /// <summary>The columns of a slice's live progress row (the signals table).</summary>
    public static class Progress
    {
        public const string StepId = "StepId";
        public const string Workload = "Workload";
        public const string Slice = "Slice";
        public const string Operations = "Operations";
        public const string Units = "Units";
        public const string Throttled = "Throttled";
        public const string Failed = "Failed";
        public const string UnitsPerSecond = "UnitsPerSecond";
        public const string PlannedUnits = "PlannedUnits";
        public const string DurationSeconds = "DurationSeconds";
        public const string StartAtUtc = "StartAtUtc";
        public const string UpdatedUtc = "UpdatedUtc";
        public const string Done = "Done";
        public const string Latency = "Latency";
        public const string Worker = "Worker";
    }

    /// <summary>Run-row columns stored as Int64; every other numeric column is Double.</summary>
    public static readonly IReadOnlySet<string> Int64Columns = new HashSet<string>(
        [Instances, Steps, BlobsFailed, BlobBytesSent, BlobBytesSentForFailedBlobs,
            .. new[] { WorkloadColumns.Table, WorkloadColumns.Blob }.SelectMany(c => new[]
                { c.Operations, c.Succeeded, c.Failed, c.Throttled, c.TimedOut, c.Entities, c.Bytes, c.Planned, c.Stored, c.PerSecondSamples, c.LateRequests,
                    c.DroppedOperations })],
        StringComparer.Ordinal);

    public static readonly IReadOnlySet<string> DoubleColumns = new HashSet<string>(
        [StepValue, SaturationHighest, SaturationKnee, BlobBlockMegabytesPerSecond, WorkloadColumns.Table.ClientCpu, WorkloadColumns.Blob.ClientCpu,
            .. new[] { WorkloadColumns.Table, WorkloadColumns.Blob }.SelectMany(c => new[]
                { c.DurationSeconds, c.OperationsPerSecond, c.EntitiesPerSecond, c.MegabytesPerSecond, c.PeakPerSecond, c.LatencyP50Ms, c.LatencyP90Ms,
                    c.LatencyP99Ms, c.LatencyMaxMs, c.UnstoredShare, c.PerSecondMean, c.PerSecondDeviation, c.ServiceTimeP50Ms, c.ServiceTimeP99Ms,
                    c.ScheduleLagP99Ms, c.ScheduleLagMaxMs })],
        StringComparer.Ordinal);
}

/// <summary>The columns of one workload's figures in a run or step row, written out whole for each workload.</summary>
public sealed record WorkloadColumns
{
    public static readonly WorkloadColumns Table = new()
    {
        Operations = "TableOperations", Succeeded = "TableSucceeded", Failed = "TableFailed", Throttled = "TableThrottled", TimedOut = "TableTimedOut",
        Entities = "TableEntities", Bytes = "TableBytes", Planned = "TablePlanned", Stored = "TableStored", UnstoredShare = "TableUnstoredShare",
        DurationSeconds = "TableDurationSeconds", OperationsPerSecond = "TableOperationsPerSecond", EntitiesPerSecond = "TableEntitiesPerSecond",
        MegabytesPerSecond = "TableMegabytesPerSecond", PeakPerSecond = "TablePeakPerSecond", PerSecondMean = "TablePerSecondMean",
        PerSecondDeviation = "TablePerSecondDeviation", PerSecondSamples = "TablePerSecondSamples", ClientCpu = "TableClientCpuMicrosecondsPerEntity",
        LatencyP50Ms = "TableLatencyP50Ms", LatencyP90Ms = "TableLatencyP90Ms", LatencyP99Ms = "TableLatencyP99Ms", LatencyMaxMs = "TableLatencyMaxMs",
        Verified = "TableVerified", LatencyHistogram = "TableLatencyHistogram",
        ServiceTimeP50Ms = "TableServiceTimeP50Ms", ServiceTimeP99Ms = "TableServiceTimeP99Ms", ScheduleLagP99Ms = "TableScheduleLagP99Ms",
        ScheduleLagMaxMs = "TableScheduleLagMaxMs", LateRequests = "TableLateRequests", DroppedOperations = "TableDroppedOperations",
    };

    public static readonly WorkloadColumns Blob = new()
    {
        Operations = "BlobOperations", Succeeded = "BlobSucceeded", Failed = "BlobFailed", Throttled = "BlobThrottled", TimedOut = "BlobTimedOut",
        Entities = "BlobEntities", Bytes = "BlobBytes", Planned = "BlobPlanned", Stored = "BlobStored", UnstoredShare = "BlobUnstoredShare",
        DurationSeconds = "BlobDurationSeconds", OperationsPerSecond = "BlobOperationsPerSecond", EntitiesPerSecond = "BlobEntitiesPerSecond",
        MegabytesPerSecond = "BlobMegabytesPerSecond", PeakPerSecond = "BlobPeakPerSecond", PerSecondMean = "BlobPerSecondMean",
        PerSecondDeviation = "BlobPerSecondDeviation", PerSecondSamples = "BlobPerSecondSamples", ClientCpu = "BlobClientCpuMicrosecondsPerMegabyte",
        LatencyP50Ms = "BlobLatencyP50Ms", LatencyP90Ms = "BlobLatencyP90Ms", LatencyP99Ms = "BlobLatencyP99Ms", LatencyMaxMs = "BlobLatencyMaxMs",
        Verified = "BlobVerified", LatencyHistogram = "BlobLatencyHistogram",
        ServiceTimeP50Ms = "BlobServiceTimeP50Ms", ServiceTimeP99Ms = "BlobServiceTimeP99Ms", ScheduleLagP99Ms = "BlobScheduleLagP99Ms",
        ScheduleLagMaxMs = "BlobScheduleLagMaxMs", LateRequests = "BlobLateRequests", DroppedOperations = "BlobDroppedOperations",
    };

    /// <summary>The table workload's columns for tableInsert, the blob workload's for anything else (as rows have always been written).</summary>
    public static WorkloadColumns For(string workload) => workload == Workloads.TableInsertWorkload.Name ? Table : Blob;

    public required string Operations { get; init; }
    public required string Succeeded { get; init; }
    public required string Failed { get; init; }
    public required string Throttled { get; init; }
    public required string TimedOut { get; init; }
    public required string Entities { get; init; }
    public required string Bytes { get; init; }
    public required string Planned { get; init; }
    public required string Stored { get; init; }
    public required string UnstoredShare { get; init; }
    public required string DurationSeconds { get; init; }
    public required string OperationsPerSecond { get; init; }
    public required string EntitiesPerSecond { get; init; }
    public required string MegabytesPerSecond { get; init; }
    /// <summary>Absent when the run covered no whole second.</summary>
    public required string PeakPerSecond { get; init; }
    /// <summary>The run's own noise, for compare; absent on rows written before it was recorded.</summary>
    public required string PerSecondMean { get; init; }
    public required string PerSecondDeviation { get; init; }
    public required string PerSecondSamples { get; init; }
    /// <summary>Driver CPU per unit: per entity for the table workload, per MB for blobs.</summary>
    public required string ClientCpu { get; init; }
    /// <summary>Latency percentiles and max; absent when no request succeeded (a percentile of no samples does not exist).</summary>
    public required string LatencyP50Ms { get; init; }
    public required string LatencyP90Ms { get; init; }
    public required string LatencyP99Ms { get; init; }
    public required string LatencyMaxMs { get; init; }
    public required string Verified { get; init; }
    public required string LatencyHistogram { get; init; }
    /// <summary>Service time (send to answer), beside latency; absent when no request succeeded.</summary>
    public required string ServiceTimeP50Ms { get; init; }
    public required string ServiceTimeP99Ms { get; init; }
    /// <summary>An open loop's lag behind its schedule (see ScheduleLag); absent for a closed loop.</summary>
    public required string ScheduleLagP99Ms { get; init; }
    public required string ScheduleLagMaxMs { get; init; }
    public required string LateRequests { get; init; }
    public required string DroppedOperations { get; init; }
}
