using System.Globalization;
using System.Text.Json.Serialization;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// What a workload is to everything that names, counts or shows it: reports, comparisons, results rows, telemetry
/// queries, the live progress (the CLI's and the dashboard's, which reads it from the API) and the capacity plan.
/// <see cref="All"/> follows the one list of workloads (<see cref="WorkloadList"/>); a new workload's room brings its own kind, and these places follow.
/// </summary>
/// <param name="Name">The spec section and the name in summaries, rows and telemetry.</param>
/// <param name="Unit">What its headline rate counts per second ("entities", or "MB" of committed blobs).</param>
/// <param name="UnitSingular">One of <see cref="Unit"/>, for figures per unit (CPU per entity, per MB).</param>
/// <param name="RateFormat">How its rate is printed (.NET numeric format).</param>
/// <param name="CountedUnit">What its slices count as they go ("entities", or "bytes" staged).</param>
/// <param name="CountedPerUnit">Counted units in one <see cref="Unit"/> (1, or 1,000,000 bytes a MB).</param>
/// <param name="RateMeasurement">The telemetry measurement that carries its headline rate.</param>
public sealed record WorkloadKind(string Name, string Unit, string UnitSingular, string RateFormat, string CountedUnit, double CountedPerUnit, string RateMeasurement)
{
    /// <summary>A kind that counts entities: its rate in entities/s, CPU per entity.</summary>
    public static WorkloadKind CountingEntities(string name, string columnPrefix) =>
        new(name, "entities", "entity", "#,0.0", "entities", 1, "entitiesPerSecond")
        {
            ColumnPrefix = columnPrefix, RateOf = t => t.EntitiesPerSecond, RateColumn = "EntitiesPerSecond", CpuColumn = "Entity", CpuFormat = "0.#",
            RateHeading = "entities/s", UnitsText = u => u.ToString("#,0", CultureInfo.InvariantCulture), RowRateText = r => r.ToString("0.0", CultureInfo.InvariantCulture),
            PlanNumber = v => v.ToString("N0", CultureInfo.InvariantCulture),
            ThroughputOf = (ops, perSecond, entitySizeBytes) => new Throughput(ops, perSecond, perSecond * entitySizeBytes / 1000.0, null, null),
            WithUnits = (s, units, cpuPerUnit) => s with { Entities = units, ClientCpuMicrosecondsPerEntity = cpuPerUnit },
        };

    /// <summary>A kind that counts bytes: its rate in MB/s (decimal), CPU per MB.</summary>
    public static WorkloadKind CountingBytes(string name, string columnPrefix) =>
        new(name, "MB", "MB", "#,0.00", "bytes", 1e6, "megabytesPerSecond")
        {
            ColumnPrefix = columnPrefix, RateOf = t => t.MegabytesPerSecond, RateColumn = "MegabytesPerSecond", CpuColumn = "Megabyte", CpuFormat = "0",
            RateHeading = "throughput", UnitsText = u => (u / 1e6).ToString("#,0.0", CultureInfo.InvariantCulture) + " MB",
            // MB/s, or below 1 MB/s KB/s, as the reports write it.
            RowRateText = Reports.ReportWriter.BytesPerSecond,
            PlanNumber = v => v.ToString(v >= 100 ? "N0" : "N1", CultureInfo.InvariantCulture),
            ThroughputOf = (ops, perSecond, _) => new Throughput(ops, null, null, perSecond, perSecond * 8),
            WithUnits = (s, units, cpuPerUnit) => s with { Bytes = units, ClientCpuMicrosecondsPerMegabyte = cpuPerUnit },
        };

    /// <summary>"entities/s": the rate of every kind that counts entities.</summary>
    public static string EntitiesPerSecond { get; } = CountingEntities("", "").RateUnit;

    /// <summary>"MB/s": the rate of every kind that counts bytes.</summary>
    public static string MegabytesPerSecond { get; } = CountingBytes("", "").RateUnit;

    /// <summary>Every workload's kind, in the order a step runs them (<see cref="WorkloadList"/>).</summary>
    public static IReadOnlyList<WorkloadKind> All => [.. WorkloadList.All.Select(w => w.Kind)];

    /// <summary>What its results-table columns start with ("Table": TableEntitiesPerSecond, TableLatencyP99Ms, …).</summary>
    public required string ColumnPrefix { get; init; }

    /// <summary>What its planned and stored work counts ("entities", "blobs"): what maxUnstoredShare is judged on.</summary>
    public string PlannedUnit { get; init; } = "operations";

    /// <summary>What one measured (timed) request is called ("request", "Put Block").</summary>
    public string Request { get; init; } = "request";

    /// <summary>What its stored figure (of the planned work) counts as done, as a report heads it ("stored", "downloaded", "read").</summary>
    public string StoredWord { get; init; } = "stored";

    /// <summary>What is done to its bytes, as a cost per GB says it ("written", "uploaded", "read", "downloaded").</summary>
    public string Done { get; init; } = "written";

    /// <summary>What its requests are, as a cost at scale says it ("writes", "reads").</summary>
    public string Work { get; init; } = "writes";

    // Its unit's rules, set by the two makers above only (a room picks its unit, never a rule of it); not in progress JSON.
    /// <summary>Its headline rate's results column after the prefix ("EntitiesPerSecond", "MegabytesPerSecond").</summary>
    [JsonIgnore]
    public string RateColumn { get; private init; } = null!;

    /// <summary>The unit in its CPU column's name (ClientCpuMicrosecondsPer"Entity", "Megabyte").</summary>
    [JsonIgnore]
    public string CpuColumn { get; private init; } = null!;

    /// <summary>How CPU per unit is printed: a tenth of a µs per entity tells; per MB it does not.</summary>
    [JsonIgnore]
    public string CpuFormat { get; private init; } = null!;

    /// <summary>The heading of its rate column in a listing of runs.</summary>
    [JsonIgnore]
    public string RateHeading { get; private init; } = null!;

    /// <summary>Counted units as a table shows them ("12,000", "8.4 MB").</summary>
    [JsonIgnore]
    public Func<long, string> UnitsText { get; private init; } = null!;

    /// <summary>A stored headline rate as a listing of runs shows it.</summary>
    [JsonIgnore]
    public Func<double, string> RowRateText { get; private init; } = null!;

    /// <summary>A rate as a capacity plan writes it.</summary>
    [JsonIgnore]
    public Func<double, string> PlanNumber { get; private init; } = null!;

    /// <summary>A throughput in its unit's fields, from operations/s, units/s and the entity size: entities/s and KB/s, or MB/s and Mbps (decimal units).</summary>
    [JsonIgnore]
    public Func<double, double, int, Throughput> ThroughputOf { get; private init; } = null!;

    /// <summary>A summary given its counted units and CPU µs per unit in its unit's fields: entities and per entity, or bytes and per MB.</summary>
    [JsonIgnore]
    public Func<WorkloadSummary, long, double?, WorkloadSummary> WithUnits { get; private init; } = null!;

    /// <summary>"entities/s", "MB/s".</summary>
    public string RateUnit => Unit + "/s";

    /// <summary>"µs/entity", "µs/MB".</summary>
    public string CpuUnit => "µs/" + UnitSingular;

    /// <summary>Its headline rate in a summary's throughput.</summary>
    [JsonIgnore]
    public Func<Throughput, double?> RateOf { get; init; } = _ => null;

    /// <summary>The workload of this name; null for a name no workload has (a row or event from elsewhere).</summary>
    public static WorkloadKind? Find(string? name) => All.FirstOrDefault(k => k.Name == name);

    /// <summary>The workload of this name, which must be one.</summary>
    public static WorkloadKind Of(string name) => Find(name) ?? throw new ArgumentException($"\"{name}\" is no workload: {string.Join(", ", All.Select(k => k.Name))}", nameof(name));
}
