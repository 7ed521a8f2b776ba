using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Microsoft.Win32.SafeHandles;

namespace StorageBench.Cli;

/// <summary>
/// The default control-plane store: one Azurite per user, on loopback, persisted on disk in <see cref="Folder"/>, shared
/// by every CLI process of that user. Task hubs, cancel signals, progress rows and results live there, never in the
/// account under test, and survive a killed process (and a reboot), so `run --resume` can finish a run.
/// </summary>
/// <remarks>
/// Lifetime without a daemon: each CLI process that uses the store holds a shared flock on users.lock for as long as it
/// runs (the kernel drops it when the process ends in any way). Azurite runs under a small shell that waits for an
/// exclusive lock on that file, which it gets only once no CLI process holds one, and then, once the store has stayed
/// unused for <see cref="IdleSetting"/>, stops Azurite. Starting is serialized by start.lock, so two processes never
/// start two Azurites on one folder.
/// </remarks>
public sealed class HubAzurite : IDisposable
{
    /// <summary>The folder setting: tests and users who want the store elsewhere set it.</summary>
    public const string FolderSetting = "STORAGEBENCH_HUB_DIR";

    /// <summary>How long the store's Azurite stays up after the last CLI process lets go of it (seconds; 0: it stops then).</summary>
    public const string IdleSetting = "STORAGEBENCH_HUB_IDLE_SECONDS";

    /// <summary>
    /// The default of <see cref="IdleSetting"/>: a user's next run within 15 minutes joins a running store instead of paying its
    /// start (seconds on a busy machine); idle, Azurite costs a little memory and almost no CPU (BENCHMARKS.md section 10).
    /// </summary>
    public const int DefaultIdleSeconds = 900;

    private readonly SafeFileHandle _users;
    private readonly string _folder;

    private HubAzurite(string folder, SafeFileHandle users, string connectionString, bool started, string? notice)
    {
        _folder = folder;
        _users = users;
        ConnectionString = connectionString;
        Started = started;
        Notice = notice;
    }

    /// <summary>The store's connection string: its own account key (never the development key), the ports this Azurite listens on.</summary>
    public string ConnectionString { get; }

    /// <summary>True when this process started Azurite (false: it joined one another process had started).</summary>
    public bool Started { get; }

    /// <summary>One line for the user when the store was made private just now or still runs open, else null.</summary>
    public string? Notice { get; }

    /// <summary>The account the store serves: the development account's name (so a store from before keeps its data), with a key of its own.</summary>
    private const string Account = "devstoreaccount1";

    /// <summary>STORAGEBENCH_HUB_DIR, else $XDG_DATA_HOME/storagebench/hub, else ~/.local/share/storagebench/hub.</summary>
    public static string Folder =>
        Environment.GetEnvironmentVariable(FolderSetting) is { Length: > 0 } dir ? Path.GetFullPath(dir)
        : Path.Combine(Environment.GetEnvironmentVariable("XDG_DATA_HOME") is { Length: > 0 } data ? data
            : Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".local", "share"), "storagebench", "hub");

    /// <summary>Whether <paramref name="folder"/> holds a store an earlier process made (opening it then creates nothing).</summary>
    public static bool Exists(string folder) => Directory.Exists(Path.Combine(folder, "data"));

    /// <summary>Joins the store's Azurite, starting it when none runs; it stays up while any CLI process holds it.</summary>
    public static Task<HubAzurite> OpenAsync(CancellationToken ct) => OpenAsync(Folder, ct);

    /// <summary>The store in <paramref name="folder"/> (tests: one of their own, opened in-process).</summary>
    /// <param name="idleSeconds">How long an Azurite started here stays up unused (default: <see cref="IdleSetting"/>).</param>
    public static async Task<HubAzurite> OpenAsync(string folder, CancellationToken ct, int? idleSeconds = null)
    {
        string? closed = HubStoreFolder.Prepare(folder)
            ? $"the hub store in {folder} was readable by other users: it is now theirs no longer (folders 0700, files 0600, an account key of its own); its runs and results are kept"
            : null;
        using var start = await HubStoreLocks.TakeAsync(Path.Combine(folder, "start.lock"), exclusive: true, ct).ConfigureAwait(false);
        // Shared before looking: while the last user's Azurite is being stopped (exclusive lock held), this waits for that.
        var users = await HubStoreLocks.TakeAsync(Path.Combine(folder, "users.lock"), exclusive: false, ct).ConfigureAwait(false);
        try
        {
            // Its mtime tells an idle store's wrapper that it was used while it waited to stop.
            await HubStoreFolder.WriteAsync(Path.Combine(folder, "opened"), "").ConfigureAwait(false);
            string stateFile = Path.Combine(folder, "azurite.json");
            if (await RunningAsync(stateFile, ct).ConfigureAwait(false) is { } running)
            {
                // An Azurite an older storagebench started takes the development key until it stops; joined as it is, not stopped under its users.
                return running.Private
                    ? new HubAzurite(folder, users, AzuriteServer.ConnectionStringFor(running.Ports, Account, HubStoreFolder.Key(folder)), started: false, closed)
                    : new HubAzurite(folder, users, AzuriteServer.ConnectionStringFor(running.Ports), started: false, StillOpen(folder));
            }
            string key = HubStoreFolder.Key(folder);
            int[] ports = await StartAsync(folder, stateFile, key, idleSeconds ?? IdleSeconds(), ct).ConfigureAwait(false);
            return new HubAzurite(folder, users, AzuriteServer.ConnectionStringFor(ports, Account, key), started: true, closed);
        }
        catch
        {
            users.Dispose();
            throw;
        }
    }

    /// <summary>Lets go of the store: the last process to let go stops its Azurite (its data stays on disk).</summary>
    public void Dispose() => _users.Dispose();

    /// <summary>
    /// Lets go of a store this process opened and did not use (its input was refused): an Azurite it started is stopped at
    /// once, unless another process has joined it meanwhile, so the store is as it was before. One it joined is let go.
    /// </summary>
    public async Task LetGoUnusedAsync()
    {
        if (!Started)
        {
            Dispose();
            return;
        }
        // Under start.lock nobody joins; the wrapper itself holds users.lock only for the instant it marks its idle time, so a
        // moment's wait tells it from another process that holds the store.
        using var start = await HubStoreLocks.TakeAsync(Path.Combine(_folder, "start.lock"), exclusive: true, CancellationToken.None).ConfigureAwait(false);
        Dispose();
        using var alone = await HubStoreLocks.TryTakeAsync(Path.Combine(_folder, "users.lock"), exclusive: true, TimeSpan.FromSeconds(0.5), CancellationToken.None)
            .ConfigureAwait(false);
        string stateFile = Path.Combine(_folder, "azurite.json");
        if (alone is null || await RunningAsync(stateFile, CancellationToken.None).ConfigureAwait(false) is not { } running)
        {
            return;
        }
        // The wrapper leads its own process group (setsid): on SIGTERM it stops Azurite as after its idle time, and exits after it.
        Platform.TerminateGroup(running.Pid);
        for (var waited = Stopwatch.StartNew(); Alive(running.Pid) && waited.Elapsed < HubStoreLocks.LockWait; )
        {
            await Task.Delay(20).ConfigureAwait(false);
        }
    }

    private static string StillOpen(string folder) =>
        $"the hub store's Azurite (in {folder}) was started by an older storagebench and takes the development key: it stops, and starts again " +
        "with a key of its own, once no storagebench process holds it (end them, then run again)";

    /// <param name="Private">Started with the store's own key (false in a state file an older storagebench wrote: the development key).</param>
    private sealed record State(int Pid, int[] Ports, bool Private = false);

    /// <summary>The store's Azurite when its wrapper lives and all three ports answer; null otherwise.</summary>
    private static async Task<State?> RunningAsync(string stateFile, CancellationToken ct)
    {
        State? state;
        try
        {
            state = JsonSerializer.Deserialize<State>(await File.ReadAllTextAsync(stateFile, ct).ConfigureAwait(false));
        }
        catch (Exception ex) when (ex is IOException or JsonException or UnauthorizedAccessException)
        {
            return null;
        }
        if (state is not { Ports.Length: 3 } || !Alive(state.Pid))
        {
            return null;
        }
        try
        {
            await AzuriteServer.WaitUntilListeningAsync(state.Ports, TimeSpan.FromSeconds(2), () => !Alive(state.Pid), ct).ConfigureAwait(false);
            return state;
        }
        catch (Exception ex) when (ex is not OperationCanceledException)
        {
            return null;
        }
    }

    private static bool Alive(int pid)
    {
        try
        {
            using var p = Process.GetProcessById(pid);
            return !p.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }

    /// <summary>
    /// The wrapper: Azurite in the background, its output to azurite.log; then wait for the exclusive lock (no CLI process
    /// left), let go of it and wait the idle time, and stop only when still nobody holds the store and nobody opened it in
    /// the meantime (the opened file is newer than the wait's mark); then stop Azurite (SIGTERM: it saves its state) and
    /// remove the state file if it is still this wrapper's. SIGTERM to its process group stops it the same way at once
    /// (<see cref="LetGoUnusedAsync"/>).
    /// </summary>
    private const string Wrapper = """
        dir=$1; idle=$2; shift 2
        umask 077
        exec </dev/null >>"$dir/azurite.log" 2>&1
        "$@" & azurite=$!
        stop() {
          kill $azurite 2>/dev/null; wait $azurite
          grep -q "\"Pid\":$$," "$dir/azurite.json" 2>/dev/null && rm -f "$dir/azurite.json"
          exit 0
        }
        trap 'echo "storagebench: stopped unused by the process that started it (wrapper $$)"; stop' TERM
        exec 9>>"$dir/users.lock"
        while :; do
          flock -x 9
          [ "$idle" -gt 0 ] || break
          touch "$dir/idle.mark"
          flock -u 9
          sleep "$idle" & wait $!
          flock -x -n 9 && ! [ "$dir/opened" -nt "$dir/idle.mark" ] && break
          flock -u 9
        done
        echo "storagebench: no CLI process has held the hub store for $idle s; stopping Azurite (wrapper $$)"
        stop
        """;

    /// <param name="key">The account's key: given to Azurite in its environment (AZURITE_ACCOUNTS), never on its command line.</param>
    private static async Task<int[]> StartAsync(string folder, string stateFile, string key, int idleSeconds, CancellationToken ct)
    {
        string azurite = AzuriteServer.FindExecutable();
        Exception? last = null;
        for (int attempt = 0; attempt < 3; attempt++)
        {
            int[] ports = AzuriteServer.FreePorts(3);
            var psi = Platform.ShellInOwnSession(Wrapper,
            [
                folder, idleSeconds.ToString(CultureInfo.InvariantCulture), azurite,
                "--location", Path.Combine(folder, "data"), "--disableTelemetry", "--loose", "--silent", "--skipApiVersionCheck",
                "--blobHost", "127.0.0.1", "--blobPort", Port(ports[0]), "--queueHost", "127.0.0.1", "--queuePort", Port(ports[1]),
                "--tableHost", "127.0.0.1", "--tablePort", Port(ports[2]),
            ], waitForIt: false);
            psi.WorkingDirectory = folder;
            psi.Environment["AZURITE_ACCOUNTS"] = $"{Account}:{key}";
            AzuriteServer.DeferUnusedModules(psi);
            using var wrapper = Process.Start(psi) ?? throw new InvalidOperationException($"could not start {azurite}");
            try
            {
                await AzuriteServer.WaitUntilListeningAsync(ports, TimeSpan.FromSeconds(60), () => wrapper.HasExited, ct).ConfigureAwait(false);
                await HubStoreFolder.WriteAsync(stateFile, JsonSerializer.Serialize(new State(wrapper.Id, ports, Private: true))).ConfigureAwait(false);
                return ports;
            }
            catch (Exception ex)
            {
                // Never leave a half-started Azurite on the folder.
                if (!wrapper.HasExited)
                {
                    wrapper.Kill(entireProcessTree: true);
                }
                if (ex is OperationCanceledException)
                {
                    throw;
                }
                last = ex;
            }
        }
        throw new InvalidOperationException($"the hub store's Azurite (in {folder}) did not start: {last?.Message}; see {Path.Combine(folder, "azurite.log")}", last);
    }

    /// <summary><see cref="IdleSetting"/>, else <see cref="DefaultIdleSeconds"/>; a value that is not a whole number of seconds is one line.</summary>
    private static int IdleSeconds() => Environment.GetEnvironmentVariable(IdleSetting) switch
    {
        null or "" => DefaultIdleSeconds,
        var text when int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int seconds) => seconds,
        var text => throw new LocalSetupException($"{IdleSetting}: \"{text}\" must be a whole number of seconds, 0 or more (0: the hub store stops with the last process)"),
    };

    private static string Port(int port) => port.ToString(CultureInfo.InvariantCulture);
}
