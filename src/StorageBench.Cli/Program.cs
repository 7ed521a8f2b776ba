using StorageBench.Cli;

DriverProcess.Configure();

using var cancel = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) =>
{
    // First Ctrl+C: stop the run and clean up. The process ends when cleanup is done.
    e.Cancel = true;
    cancel.Cancel();
};
try
{
    return await CliApp.RunAsync(args, Console.Out, Console.Error, cancel.Token);
}
catch (OperationCanceledException) when (cancel.IsCancellationRequested)
{
    await Console.Error.WriteLineAsync("canceled");
    return 130;
}
