using StorageBench.Engine.Logging;

namespace StorageBench.Engine.StorageCalls;

/// <summary>
/// The deadline of each kind of storage call outside the measured path (docs/storage-calls.md has the table:
/// call, deadline, outcome). Tests shorten them; the code path is the product's.
/// </summary>
public sealed record StorageCallPolicy
{
    public static StorageCallPolicy Default { get; } = new();

    /// <summary>A progress row write or read, or a cancel poll: one try, no retries. Past it: skip this update / no cancel seen.</summary>
    public TimeSpan Quick { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>Each try of a results-table request (the SDK retries it, up to its default 3 retries).</summary>
    public TimeSpan ResultsTry { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>A run, step or slice row, or reading results back, retries included. Past it: the local summary, the error named.</summary>
    public TimeSpan Results { get; init; } = TimeSpan.FromSeconds(60);

    /// <summary>Creating a step's table and container. Past it: the step fails with the error named, and its cleanup still runs.</summary>
    public TimeSpan Setup { get; init; } = TimeSpan.FromMinutes(2);

    /// <summary>Writing what a reading workload will read (its seed). Past it: the step fails with the error named, and its cleanup still runs.</summary>
    public TimeSpan Seeding { get; init; } = TimeSpan.FromMinutes(10);

    /// <summary>Counting what landed in a step's table or container. Past it: "not verified" with the reason, figures kept.</summary>
    public TimeSpan Verification { get; init; } = TimeSpan.FromMinutes(10);

    /// <summary>Deleting a step's table and container, or a killed driver's leftovers. Past it: a named error; the cleanup command removes them later.</summary>
    public TimeSpan Cleanup { get; init; } = TimeSpan.FromMinutes(2);
}

/// <summary>A storage call outside the measured path failed in a classified way (timeout included); its message names the call and the cause.</summary>
public sealed class StorageCallFailedException(string call, StorageFailure failure, Exception inner)
    : Exception($"{call}: {failure.Text}", inner)
{
    public string Call { get; } = call;

    public StorageFailure Failure { get; } = failure;
}

/// <summary>Runs one storage call outside the measured path under its deadline, and classifies how it failed.</summary>
public static class StorageCall
{
    /// <summary>
    /// The call's result. A storage failure, or the deadline passing, throws <see cref="StorageCallFailedException"/>;
    /// the caller's own cancellation propagates as it is, and so does anything that is not a storage failure (a bug).
    /// </summary>
    public static async Task<T> RunAsync<T>(string call, TimeSpan deadline, Func<CancellationToken, Task<T>> run, CancellationToken ct)
    {
        using var timer = CancellationTokenSource.CreateLinkedTokenSource(ct);
        timer.CancelAfter(deadline);
        try
        {
            return await run(timer.Token).ConfigureAwait(false);
        }
        catch (Exception ex) when (!ct.IsCancellationRequested && StorageFailures.Classify(ex, ct) is { } failure)
        {
            if (timer.IsCancellationRequested && failure.Kind == StorageFailureKind.TimedOut)
            {
                failure = failure with { Text = $"no answer within its {deadline.TotalSeconds:0.###} s deadline" };
            }
            throw new StorageCallFailedException(call, failure, ex);
        }
    }

    public static Task RunAsync(string call, TimeSpan deadline, Func<CancellationToken, Task> run, CancellationToken ct) =>
        RunAsync(call, deadline, async t =>
        {
            await run(t).ConfigureAwait(false);
            return true;
        }, ct);

    /// <summary>
    /// For calls whose outcome on failure is to go on without them: the value, or the failure. A failure is logged
    /// here, once, with its exception (<see cref="Logs.StorageCallSkipped"/>): the caller only notes it.
    /// </summary>
    public static async Task<(T? Value, StorageFailure? Failure)> TryAsync<T>(string call, TimeSpan deadline, Func<CancellationToken, Task<T>> run, CancellationToken ct,
        ILogger? logger = null)
    {
        try
        {
            return (await RunAsync(call, deadline, run, ct).ConfigureAwait(false), null);
        }
        catch (StorageCallFailedException ex)
        {
            logger?.StorageCallSkipped(ex.InnerException ?? ex, call, ex.Failure.Text);
            return (default, ex.Failure);
        }
    }
}
