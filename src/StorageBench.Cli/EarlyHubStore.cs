namespace StorageBench.Cli;

/// <summary>
/// A returning user's hub store (its folder made by an earlier run), opened while the run's input is still being checked, so
/// its Azurite's start (a quarter of a second) overlaps the checks rather than following them. Input refused after all
/// leaves the store as it was: an Azurite started here stops again, one joined is let go (<see cref="HubAzurite.LetGoUnusedAsync"/>).
/// </summary>
internal sealed class EarlyHubStore : IAsyncDisposable
{
    private readonly CancellationTokenSource _cancel;
    private bool _used;

    private EarlyHubStore(CancellationToken ct)
    {
        _cancel = CancellationTokenSource.CreateLinkedTokenSource(ct);
        // On the pool: its locks, files and the spawn run beside the reading of the spec.
        Opening = Task.Run(() => ControlPlane.OpenLocalAsync(_cancel.Token));
    }

    /// <summary>The store, opening; <see cref="CliTargets.WithTargetsAsync"/> takes it as the run's control plane.</summary>
    public Task<ControlPlane> Opening { get; }

    /// <summary>
    /// Null when the run names its control plane (or names it badly: that is refused later), or the store has no folder yet:
    /// a first run must not make one before its input is checked.
    /// </summary>
    public static EarlyHubStore? Begin(string? hubConnectionString, CancellationToken ct) =>
        ControlPlane.Given(hubConnectionString, out string? error) is null && error is null && HubAzurite.Exists(HubAzurite.Folder) ? new(ct) : null;

    /// <summary>The run went ahead on it: from here it is the run's, and disposed with it.</summary>
    public void Used() => _used = true;

    public async ValueTask DisposeAsync()
    {
        if (!_used)
        {
            await _cancel.CancelAsync().ConfigureAwait(false);
            try
            {
                using var plane = await Opening.ConfigureAwait(false);
                await plane.LetGoUnusedAsync().ConfigureAwait(false);
            }
            catch (Exception)
            {
                // Canceled before Azurite answered (its start stopped what it had started), or it could not open: nothing to let
                // go, and the refusal of the input, already said, is what the user reads.
            }
        }
        _cancel.Dispose();
    }
}
