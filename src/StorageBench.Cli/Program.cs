using StorageBench.Cli;

DriverProcess.Configure();

using var cancel = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) =>
{
    // First Ctrl+C: stop the run and clean up. The process ends when cleanup is done.
    e.Cancel = true;
    if (!cancel.IsCancellationRequested)
    {
        // On a line of its own: the progress line may be in the middle of being rewritten.
        Console.Error.WriteLine(Environment.NewLine + InterruptNotice.FirstPress);
        cancel.Cancel();
        return;
    }
    // Second: stop now, saying what that leaves behind (an Azurite this process started stops with it).
    Console.Error.WriteLine(Environment.NewLine + InterruptNotice.SecondPress());
    Environment.Exit(130);
};
try
{
    // Progress updates in place only on a terminal; a pipe or a CI log gets plain lines.
    bool terminal = !Console.IsOutputRedirected && Environment.GetEnvironmentVariable("TERM") is not (null or "dumb")
        && string.IsNullOrEmpty(Environment.GetEnvironmentVariable("CI"));
    return await CliApp.RunAsync(args, Console.Out, Console.Error, cancel.Token, terminal);
}
catch (OperationCanceledException) when (cancel.IsCancellationRequested)
{
    await Console.Error.WriteLineAsync("canceled");
    return 130;
}
