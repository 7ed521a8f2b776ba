namespace StorageBench.Cli;

/// <summary>
/// What a second Ctrl+C, which stops the CLI at once, leaves behind: the run command says which run is going
/// and where; the first Ctrl+C cancels that run cleanly instead.
/// </summary>
public static class InterruptNotice
{
    private static volatile string? _runId;
    private static volatile bool _ownAzurite;

    /// <summary>This process started its own in-memory Azurite: what a run leaves in it goes when it stops.</summary>
    public static void AzuriteStarted() => _ownAzurite = true;

    public static void RunStarted(string runId) => _runId = runId;

    private static volatile bool _worker;

    /// <summary>This process is a `storagebench worker`: Ctrl+C stops the worker, not a run.</summary>
    public static void WorkerStarted() => _worker = true;

    /// <summary>The line printed on the first Ctrl+C.</summary>
    public static string FirstPress => _worker
        ? "Ctrl+C: stopping this worker; slices it is running run again on another worker of the hub (Ctrl+C again stops at once)"
        : "Ctrl+C: canceling: the slices stop, the run verifies and deletes what it wrote and is stored as Canceled (Ctrl+C again stops at once)";

    /// <summary>The line printed on the second Ctrl+C.</summary>
    public static string SecondPress() => _runId switch
    {
        // No run of this command (`serve` starts runs for its callers): say only what is known.
        null when _ownAzurite => "Ctrl+C again: stopped at once; the in-memory Azurite this CLI started stops too, with anything in it",
        null => "Ctrl+C again: stopped at once; a run this process had started is not verified, stored or cleaned up: `storagebench cleanup` deletes its tables and containers once older than --older-than",
        { } id when _ownAzurite => $"Ctrl+C again: stopped at once; run {id} is not verified, its result is not stored and no report is written; " +
            "its table and container go with the in-memory Azurite this CLI started, which stops too",
        { } id => $"Ctrl+C again: stopped at once; run {id} is not verified, its result row is not stored and no report is written; " +
            "its step tables and containers (sbt…/sbb… names) are left in the account: `storagebench cleanup` deletes them once older than --older-than",
    };
}
