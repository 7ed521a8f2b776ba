using System.Runtime.InteropServices;

namespace StorageBench.Cli;

/// <summary>
/// The one place the CLI handles the signals that ask it to stop: SIGINT (Ctrl+C), SIGTERM (what CI cancellation,
/// `docker stop`, systemd and `timeout` send) and SIGQUIT (Ctrl+\). All three mean the same: the first cancels
/// <see cref="Token"/> — a run is canceled cleanly, `serve` cancels the runs it started, a worker stops and hands its
/// slices back — and the process ends when that is done; the second, of any of them, stops the process at once,
/// saying what that leaves behind (<see cref="InterruptNotice"/>).
/// </summary>
/// <remarks>
/// Nothing else registers for them: System.CommandLine's own termination handling is off
/// (<c>ProcessTerminationTimeout = null</c> in <see cref="CliApp"/>), and Console.CancelKeyPress is not used.
/// Handled through <see cref="PosixSignalRegistration"/>, a SIGTERM no longer ends the process at once (the runtime's
/// default), and each signal is canceled before the runtime acts on it.
/// </remarks>
public sealed class StopSignals : IDisposable
{
    /// <summary>The exit code of a second signal, or of a first one that ends a command before it has a result: the shell's code for Ctrl+C, whichever signal it was.</summary>
    public const int Interrupted = 130;

    private readonly CancellationTokenSource _cancel = new();
    private readonly TextWriter _stderr;
    private readonly Action<int> _exit;
    private readonly List<PosixSignalRegistration> _registrations = [];
    private int _received;
    private PosixSignal _first;

    /// <param name="exit">Ends the process on the second signal (Environment.Exit; a test passes its own).</param>
    public StopSignals(TextWriter stderr, Action<int> exit)
    {
        _stderr = stderr;
        _exit = exit;
        foreach (var signal in new[] { PosixSignal.SIGINT, PosixSignal.SIGTERM, PosixSignal.SIGQUIT })
        {
            try
            {
                _registrations.Add(PosixSignalRegistration.Create(signal, OnSignal));
            }
            catch (PlatformNotSupportedException)
            {
                // A platform without this signal cannot receive it either.
            }
        }
    }

    /// <summary>Canceled by the first stop signal.</summary>
    public CancellationToken Token => _cancel.Token;

    public bool Received => Volatile.Read(ref _received) > 0;

    private void OnSignal(PosixSignalContext context)
    {
        // Never the runtime's default (for SIGTERM: end the process now); what happens is decided here.
        context.Cancel = true;
        Handle(context.Signal);
    }

    /// <summary>What a signal does; public so that a test can drive it without sending one.</summary>
    public void Handle(PosixSignal signal)
    {
        if (Interlocked.Increment(ref _received) == 1)
        {
            _first = signal;
            // On a line of its own: the progress line may be in the middle of being rewritten.
            _stderr.WriteLine(Environment.NewLine + InterruptNotice.FirstSignal(Name(signal)));
            _stderr.Flush();
            _cancel.Cancel();
            return;
        }
        _stderr.WriteLine(Environment.NewLine + InterruptNotice.SecondSignal(Name(signal), Name(_first)));
        _stderr.Flush();
        // An Azurite this process started stops with it (its watcher sees the pipe close).
        _exit(Interrupted);
    }

    /// <summary>How the notices name a signal: SIGINT is what Ctrl+C sends, and what users know it as.</summary>
    public static string Name(PosixSignal signal) => signal switch
    {
        PosixSignal.SIGINT => "Ctrl+C",
        PosixSignal.SIGTERM => "SIGTERM",
        PosixSignal.SIGQUIT => "SIGQUIT",
        _ => signal.ToString(),
    };

    public void Dispose()
    {
        foreach (var registration in _registrations)
        {
            registration.Dispose();
        }
        _cancel.Dispose();
    }
}
