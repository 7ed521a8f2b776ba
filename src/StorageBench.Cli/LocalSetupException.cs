namespace StorageBench.Cli;

/// <summary>
/// Something on this machine, not storage, stops the command: Azurite not installed where the CLI looks, a port already taken.
/// Its message is the one line the user reads: what is missing or busy and what to do. CliApp prints it as "error: …", exit 1.
/// </summary>
public sealed class LocalSetupException(string message, Exception? inner = null) : Exception(message, inner);
