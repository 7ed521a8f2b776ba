using System.Globalization;

namespace StorageBench.Engine.Capacity;

/// <summary>
/// Azure's documented scalability targets and Flex Consumption instance sizes, from one documented file
/// (pricing/scalability-targets.json by default; see <see cref="Read"/>). They bind a plan for Azure Storage,
/// never one for Azurite, which has no such limits.
/// </summary>
public sealed record ScalabilityTargets
{
    public const string BuiltInName = "pricing/scalability-targets.json (built in)";

    public required string File { get; init; }
    public required string ReadOn { get; init; }
    public required string Source { get; init; }
    public required double TableEntitiesPerSecondPerPartition { get; init; }
    public required double AccountRequestsPerSecond { get; init; }
    public required double AccountIngressGbps { get; init; }
    /// <summary>Data one standard account serves out (reads), gigabits per second: what binds a download plan.</summary>
    public required double AccountEgressGbps { get; init; }
    public required double BlobRequestsPerSecond { get; init; }
    public required double AccountsPerRegion { get; init; }
    public required double FlexConsumptionMaxInstances { get; init; }
    public required double FlexConsumptionCoresPer512MbInstance { get; init; }
    public required double FlexConsumptionCoresPer2048MbInstance { get; init; }
    public required double FlexConsumptionCoresPer4096MbInstance { get; init; }

    /// <summary>CPU cores of one Flex Consumption instance of <paramref name="memoryMb"/>; null for a size the plan does not offer.</summary>
    public double? CoresPerInstance(int memoryMb) => memoryMb switch
    {
        512 => FlexConsumptionCoresPer512MbInstance,
        2048 => FlexConsumptionCoresPer2048MbInstance,
        4096 => FlexConsumptionCoresPer4096MbInstance,
        _ => null,
    };

    private static readonly Lazy<ScalabilityTargets> BuiltInTargets = new(() =>
    {
        using var stream = typeof(ScalabilityTargets).Assembly.GetManifestResourceStream("scalability-targets.json")!;
        var (targets, errors) = Parse(new StreamReader(stream).ReadToEnd(), BuiltInName);
        return targets ?? throw new InvalidOperationException("the built-in scalability targets are invalid: " + string.Join("; ", errors));
    });

    /// <summary>The repository's pricing/scalability-targets.json, compiled in.</summary>
    public static ScalabilityTargets BuiltIn => BuiltInTargets.Value;

    /// <summary>The file at <paramref name="path"/>, or the built-in one when null; <paramref name="given"/> names what gave the path (the CLI's option), as the errors name it.</summary>
    public static (ScalabilityTargets? Targets, IReadOnlyList<ValidationError> Errors) Read(string? path, string given)
    {
        if (path is null)
        {
            return (BuiltIn, []);
        }
        try
        {
            return Parse(System.IO.File.ReadAllText(path), path);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            return (null, [new ValidationError(given, $"\"{path}\"", "cannot be read: " + ex.Message)]);
        }
    }

    /// <summary>Parses and checks (<see cref="StrictJsonObject"/>): every field required and a positive number (readOn, source: text), unknown fields rejected.</summary>
    public static (ScalabilityTargets? Targets, IReadOnlyList<ValidationError> Errors) Parse(string json, string file)
    {
        var (root, notAnObject) = StrictJsonObject.Parse(json, "the scalability targets", "(scalability targets)", "must be a JSON object (see pricing/scalability-targets.json)");
        if (root is null)
        {
            return (null, [notAnObject!]);
        }
        double Positive(string field) => root.Number(field, "a number above 0", v => v > 0);
        var targets = new ScalabilityTargets
        {
            File = file,
            ReadOn = root.Text("readOn", "the date the figures were read, as yyyy-MM-dd",
                v => DateOnly.TryParseExact(v, "yyyy-MM-dd", CultureInfo.InvariantCulture, DateTimeStyles.None, out _)),
            Source = root.Text("source", "where the figures came from (page names or URLs, with their dates)", v => v.Trim().Length > 0),
            TableEntitiesPerSecondPerPartition = Positive("tableEntitiesPerSecondPerPartition"),
            AccountRequestsPerSecond = Positive("accountRequestsPerSecond"),
            AccountIngressGbps = Positive("accountIngressGbps"),
            AccountEgressGbps = Positive("accountEgressGbps"),
            BlobRequestsPerSecond = Positive("blobRequestsPerSecond"),
            AccountsPerRegion = Positive("accountsPerRegion"),
            FlexConsumptionMaxInstances = Positive("flexConsumptionMaxInstances"),
            FlexConsumptionCoresPer512MbInstance = Positive("flexConsumptionCoresPer512MbInstance"),
            FlexConsumptionCoresPer2048MbInstance = Positive("flexConsumptionCoresPer2048MbInstance"),
            FlexConsumptionCoresPer4096MbInstance = Positive("flexConsumptionCoresPer4096MbInstance"),
        };
        return root.Errors() is { Count: > 0 } errors ? (null, errors) : (targets, []);
    }
}
