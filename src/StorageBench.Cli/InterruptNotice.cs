namespace StorageBench.Cli;

/// <summary>
/// What the CLI says on a stop signal (<see cref="StopSignals"/>: Ctrl+C, SIGTERM, SIGQUIT): the first cancels the run
/// cleanly; a second stops the CLI at once, and the line says what that leaves behind — the run command says which
/// run is going and where.
/// </summary>
public static class InterruptNotice
{
    private static volatile string? _runId;
    private static volatile bool _ownAzurite;

    /// <summary>This process started its own in-memory Azurite: what a run leaves in it goes when it stops.</summary>
    public static void AzuriteStarted() => _ownAzurite = true;

    public static void RunStarted(string runId) => _runId = runId;

    private static volatile bool _worker;

    /// <summary>This process is a `storagebench worker`: a stop signal stops the worker, not a run.</summary>
    public static void WorkerStarted() => _worker = true;

    private static volatile bool _serve;

    /// <summary>This process is `storagebench serve`: a stop signal cancels the runs it started, waits for them, then stops.</summary>
    public static void ServeStarted() => _serve = true;

    /// <summary>The line printed on the first stop signal (<paramref name="signal"/>: "Ctrl+C", "SIGTERM", …; <see cref="StopSignals"/>).</summary>
    public static string FirstSignal(string signal) => (_worker, _serve) switch
    {
        (true, _) => $"{signal}: stopping this worker; slices it is running run again on another worker of the hub ({Again(signal)} stops at once)",
        (_, true) => $"{signal}: stopping: the runs this server started are canceled, verified, cleaned up and stored as Canceled, then it stops ({Again(signal)} stops at once)",
        _ => $"{signal}: canceling: the slices stop, the run verifies and deletes what it wrote and is stored as Canceled ({Again(signal)} stops at once)",
    };

    private static string Again(string signal) => signal == "Ctrl+C" ? "Ctrl+C again" : $"{signal} or Ctrl+C again";

    /// <summary>The line printed on the second stop signal: what stopping at once leaves behind.</summary>
    public static string SecondSignal(string signal, string first) => (signal == first ? $"{signal} again" : $"{signal} after {first}") + ": " + _runId switch
    {
        // A worker's slices are not lost: their messages come back to the hub (the visibility timeout) for another worker.
        null when _worker => "stopped at once; slices this worker was running run again on another worker of the hub once their messages come back (within 30 s)",
        // No run of this command (`serve` starts runs for its callers): say only what is known.
        null when _ownAzurite => "stopped at once; the in-memory Azurite this CLI started stops too, with anything in it",
        null => "stopped at once; a run this process had started is not verified, stored or cleaned up: `storagebench cleanup` deletes its tables and containers once older than --older-than",
        { } id when _ownAzurite => $"stopped at once; run {id} is not verified, its result is not stored and no report is written; " +
            "its table and container go with the in-memory Azurite this CLI started, which stops too",
        { } id => $"stopped at once; run {id} is not verified, its result row is not stored and no report is written; " +
            "its step tables and containers (sbt…/sbb… names) are left in the account: `storagebench cleanup` deletes them once older than --older-than",
    };
}
