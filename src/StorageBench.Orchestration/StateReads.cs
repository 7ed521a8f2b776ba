using System.Diagnostics;

namespace StorageBench.Orchestration;

/// <summary>
/// When a watcher reads an instance's state next: after its poll interval, or as soon as this process's worker has run the
/// instance's last step (<see cref="IRunOrchestrationClient.EndingAsync"/>), and then every few milliseconds for a moment,
/// while the provider stores the end state.
/// </summary>
public sealed class StateReads(Task ending)
{
    /// <summary>The end state lands a handful of hub-store round trips after the last step: reads that close cost little, for a moment.</summary>
    private static readonly TimeSpan Settling = TimeSpan.FromMilliseconds(10);

    /// <summary>An end the provider failed to store (its step runs again) is seen at the usual poll after this.</summary>
    private static readonly TimeSpan SettlingLimit = TimeSpan.FromSeconds(2);

    private long? _endingSeen;

    public async Task NextAsync(TimeSpan poll, CancellationToken ct)
    {
        if (!ending.IsCompleted)
        {
            await Task.WhenAny(Task.Delay(poll, ct), ending).ConfigureAwait(false);
            ct.ThrowIfCancellationRequested();
            if (ending.IsCompleted)
            {
                _endingSeen = Stopwatch.GetTimestamp();
            }
            return;
        }
        _endingSeen ??= Stopwatch.GetTimestamp();
        await Task.Delay(Stopwatch.GetElapsedTime(_endingSeen.Value) < SettlingLimit ? Settling : poll, ct).ConfigureAwait(false);
    }
}
