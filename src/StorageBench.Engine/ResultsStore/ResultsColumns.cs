
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
    /// <summary>Distinct worker processes that ran slices, beside Instances (machines); absent in rows from before it was kept.</summary>
    public const string Workers = "Workers";
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
        public const string Segment = "Segment";
    }

    /// <summary>Run-row columns stored as Int64; every other numeric column is Double.</summary>
    public static readonly IReadOnlySet<string> Int64Columns = new HashSet<string>(
        [Instances, Workers, Steps,
            .. WorkloadKind.All.Select(WorkloadColumns.Of).SelectMany(c => new[]
                { c.Operations, c.Succeeded, c.Failed, c.Throttled, c.TimedOut, c.Entities, c.Bytes, c.Planned, c.Stored, c.PerSecondSamples, c.LateRequests,
                    c.DroppedOperations, c.ObjectsFailed, c.BytesSent, c.BytesSentForFailedObjects })],
        StringComparer.Ordinal);

    public static readonly IReadOnlySet<string> DoubleColumns = new HashSet<string>(
        [StepValue, SaturationHighest, SaturationKnee,
            .. WorkloadKind.All.Select(WorkloadColumns.Of).SelectMany(c => new[]
                { c.BlockMegabytesPerSecond, c.ClientCpu, c.DurationSeconds, c.OperationsPerSecond, c.EntitiesPerSecond, c.MegabytesPerSecond, c.PeakPerSecond, c.LatencyP50Ms, c.LatencyP90Ms,
                    c.LatencyP99Ms, c.LatencyMaxMs, c.UnstoredShare, c.PerSecondMean, c.PerSecondDeviation, c.ServiceTimeP50Ms, c.ServiceTimeP99Ms,
                    c.ScheduleLagP99Ms, c.ScheduleLagMaxMs })],
        StringComparer.Ordinal);
}

/// <summary>The columns of one workload's figures in a run or step row, written out whole for each workload.</summary>
public sealed record WorkloadColumns
{
    /// <summary>A workload's columns: its <see cref="WorkloadKind.ColumnPrefix"/> and the figure's name.</summary>
    public static WorkloadColumns Of(WorkloadKind kind)
    {
        string p = kind.ColumnPrefix;
        return new()
        {
            Operations = p + "Operations", Succeeded = p + "Succeeded", Failed = p + "Failed", Throttled = p + "Throttled", TimedOut = p + "TimedOut",
            Entities = p + "Entities", Bytes = p + "Bytes", Planned = p + "Planned", Stored = p + "Stored", UnstoredShare = p + "UnstoredShare",
            DurationSeconds = p + "DurationSeconds", OperationsPerSecond = p + "OperationsPerSecond", EntitiesPerSecond = p + "EntitiesPerSecond",
            MegabytesPerSecond = p + "MegabytesPerSecond", PeakPerSecond = p + "PeakPerSecond", PerSecondMean = p + "PerSecondMean",
            PerSecondDeviation = p + "PerSecondDeviation", PerSecondSamples = p + "PerSecondSamples",
            ClientCpu = p + "ClientCpuMicrosecondsPer" + kind.CpuColumn, RateName = p + kind.RateColumn,
            LatencyP50Ms = p + "LatencyP50Ms", LatencyP90Ms = p + "LatencyP90Ms", LatencyP99Ms = p + "LatencyP99Ms", LatencyMaxMs = p + "LatencyMaxMs",
            Verified = p + "Verified", LatencyHistogram = p + "LatencyHistogram",
            ServiceTimeP50Ms = p + "ServiceTimeP50Ms", ServiceTimeP99Ms = p + "ServiceTimeP99Ms", ScheduleLagP99Ms = p + "ScheduleLagP99Ms",
            ScheduleLagMaxMs = p + "ScheduleLagMaxMs", LateRequests = p + "LateRequests", DroppedOperations = p + "DroppedOperations",
            ObjectsFailed = p + "sFailed", BytesSent = p + "BytesSent", BytesSentForFailedObjects = p + "BytesSentForFailedBlobs",
            BlockMegabytesPerSecond = p + "BlockMegabytesPerSecond",
        };
    }

    /// <summary>The columns of the workload of this name; null for a name no workload has.</summary>
    public static WorkloadColumns? For(string workload) => WorkloadKind.Find(workload) is { } kind ? Of(kind) : null;

    // Private: it is one of the columns above, not a column of its own.
    private string RateName { get; init; } = "";

    /// <summary>Its headline rate's column: entities/s or MB/s, as its kind declares.</summary>
    public string RateColumn() => RateName;

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
    /// <summary>Blob workloads: blobs not committed, bytes staged (and of them for blobs never committed), and bytes staged per second.</summary>
    public required string ObjectsFailed { get; init; }
    public required string BytesSent { get; init; }
    public required string BytesSentForFailedObjects { get; init; }
    public required string BlockMegabytesPerSecond { get; init; }
}
