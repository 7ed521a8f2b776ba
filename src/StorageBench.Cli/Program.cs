using StorageBench.Cli;

// Linux only (setsid, sh, flock): anywhere else, one line and nothing started.
if (Platform.Refusal() is { } refusal)
{
    await Console.Error.WriteLineAsync(refusal);
    return Platform.UnsupportedExitCode;
}

DriverProcess.Configure();
JitProfile.Start(args);

// Ctrl+C, SIGTERM and SIGQUIT alike: the first cancels this token (the run stops and cleans up, and the process ends
// when that is done); a second stops the process at once (StopSignals).
using var signals = new StopSignals(Console.Error, Environment.Exit);
try
{
    // Progress updates in place only on a terminal; a pipe or a CI log gets plain lines.
    bool terminal = !Console.IsOutputRedirected && Environment.GetEnvironmentVariable("TERM") is not (null or "dumb")
        && string.IsNullOrEmpty(Environment.GetEnvironmentVariable("CI"));
    return await CliApp.RunAsync(args, Console.Out, Console.Error, signals.Token, terminal);
}
catch (OperationCanceledException) when (signals.Received)
{
    await Console.Error.WriteLineAsync("canceled");
    return StopSignals.Interrupted;
}
