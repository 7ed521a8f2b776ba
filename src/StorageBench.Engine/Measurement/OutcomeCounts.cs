namespace StorageBench.Engine.Measurement;

/// <summary>Requests by outcome. Operations = every request sent; Failed = every request that did not succeed.</summary>
public sealed record OutcomeCounts
{
    public long Operations { get; init; }
    public long Succeeded { get; init; }
    public long Throttled { get; init; }
    public long TimedOut { get; init; }
    public long ServerErrors { get; init; }
    public long ClientErrors { get; init; }
    public long NetworkErrors { get; init; }
    public long Failed => Operations - Succeeded;

    public static OutcomeCounts Sum(IEnumerable<OutcomeCounts> all) => all.Aggregate(new OutcomeCounts(), (a, b) => new OutcomeCounts
    {
        Operations = a.Operations + b.Operations,
        Succeeded = a.Succeeded + b.Succeeded,
        Throttled = a.Throttled + b.Throttled,
        TimedOut = a.TimedOut + b.TimedOut,
        ServerErrors = a.ServerErrors + b.ServerErrors,
        ClientErrors = a.ClientErrors + b.ClientErrors,
        NetworkErrors = a.NetworkErrors + b.NetworkErrors,
    });

    internal static OutcomeCounts FromArray(long[] byOutcome) => new()
    {
        Operations = byOutcome.Sum(),
        Succeeded = byOutcome[(int)Outcome.Succeeded],
        Throttled = byOutcome[(int)Outcome.Throttled],
        TimedOut = byOutcome[(int)Outcome.TimedOut],
        ServerErrors = byOutcome[(int)Outcome.ServerError],
        ClientErrors = byOutcome[(int)Outcome.ClientError],
        NetworkErrors = byOutcome[(int)Outcome.NetworkError],
    };
}
