using System.Globalization;
using System.Text.RegularExpressions;

namespace StorageBench.Engine.Planning;

/// <summary>Splits a validated spec into slices and names what a step writes. Pure and deterministic, so an orchestrator may call it on replay.</summary>
public static partial class Planner
{
    /// <summary>Run ids stay short enough that every table and container name built from them fits the 63-character limit.</summary>
    public const int MaxRunIdLength = 36;

    [GeneratedRegex("^[a-z0-9][a-z0-9-]{0,35}$")]
    private static partial Regex RunIdPattern();

    [GeneratedRegex("^sb[tb]([0-9]{14})[a-z0-9]+$")]
    private static partial Regex TargetNamePattern();

    public const string RunIdRule = "must be 1-36 lowercase letters, digits or '-', starting with a letter or digit";

    /// <summary>A new run id: UTC time first so ids sort by start, then randomness against collisions.</summary>
    public static string NewRunId(DateTime utcNow) =>
        $"{utcNow:yyyyMMdd-HHmmss}-{Guid.NewGuid().ToString("N")[..8]}";

    public static bool IsValidRunId(string runId) => RunIdPattern().IsMatch(runId);

    /// <summary>Each step of a run (a plain run has one) is its own sub-orchestration with this instance id.</summary>
    public static string StepId(string runId, int index) => $"{runId}-s{index:D3}";

    /// <summary>
    /// The step's own table: "sbt", its UTC creation time (yyyyMMddHHmmss), then the step id's letters
    /// and digits. Ground truth is "count everything in it", cleanup is one delete, and a leftover can
    /// be recognised and aged by its name alone (<see cref="TryParseTargetName"/>).
    /// </summary>
    public static string TableName(string stepId, DateTime createdUtc) => "sbt" + Stamp(createdUtc) + Alnum(stepId);

    public static string ContainerName(string stepId, DateTime createdUtc) => "sbb" + Stamp(createdUtc) + Alnum(stepId);

    /// <summary>A workload's own table or container in a step: the step's name for its service, and the workload's suffix.</summary>
    public static string TargetName(Workloads.Workload room, string stepId, DateTime createdUtc) =>
        (room.Service == Targets.TargetService.Table ? TableName(stepId, createdUtc) : ContainerName(stepId, createdUtc)) + room.TargetSuffix;

    /// <summary>The prefix every table or container name of a run's steps carries after its kind and stamp.</summary>
    public static string TargetSuffixOf(string runId) => Alnum(runId);

    /// <summary>True for a name this tool creates; <paramref name="createdUtc"/> is when.</summary>
    public static bool TryParseTargetName(string name, out DateTime createdUtc, out string stepLetters)
    {
        var m = TargetNamePattern().Match(name);
        stepLetters = m.Success ? m.Value[17..] : "";
        return DateTime.TryParseExact(m.Success ? m.Groups[1].Value : "", "yyyyMMddHHmmss", CultureInfo.InvariantCulture,
            DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal, out createdUtc);
    }

    public static string PartitionKey(int index) => $"p{index:D5}";

    /// <summary>Slice i's share of total, remainder to the first slices.</summary>
    public static long Share(long total, int index, int count) => total / count + (index < total % count ? 1 : 0);

    /// <summary>
    /// With at least as many partitions as slices each slice owns its own (p % slices == i);
    /// with fewer, slices share them — as the seeds' several processes shared one partition.
    /// </summary>
    public static PartitionRange PartitionsOf(int slice, int sliceCount, int partitionCount) =>
        partitionCount < sliceCount
            ? new PartitionRange(slice % partitionCount, 1, 1)
            : new PartitionRange(slice, sliceCount, (partitionCount - slice + sliceCount - 1) / sliceCount);

    private static string Stamp(DateTime utc) => utc.ToString("yyyyMMddHHmmss", CultureInfo.InvariantCulture);

    private static string Alnum(string s) => new string([.. s.Where(char.IsAsciiLetterOrDigit)]).ToLowerInvariant();
}
