namespace StorageBench.Cli;

/// <summary>
/// The file a run's target connection string was read from (<c>--connection-string-file</c>), kept by run id beside the hub
/// store in a 0700 folder: the path only, never the key. So <c>run --resume RUN_ID</c> finds the run's target again without
/// the key being given twice. A run that ends forgets it; a killed run keeps it until it is resumed.
/// </summary>
internal static class RunTargetFiles
{
    private const UnixFileMode Private = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute;

    private static string Folder => Path.Combine(HubAzurite.Folder, "run-targets");

    private static string RecordOf(string runId) => Path.Combine(Folder, Path.GetFileName(runId) + ".path");

    public static void Remember(string runId, string file)
    {
        if (OperatingSystem.IsWindows())
        {
            return; // the CLI's hub store runs where flock and setsid do; Platform says so before this is reached
        }
        Directory.CreateDirectory(Folder, Private);
        File.WriteAllText(RecordOf(runId), Path.GetFullPath(file));
    }

    /// <summary>The file the run's target was read from, when it was one and is still there; null otherwise.</summary>
    public static string? Recall(string runId) =>
        File.Exists(RecordOf(runId)) && File.ReadAllText(RecordOf(runId)).Trim() is { Length: > 0 } file && File.Exists(file) ? file : null;

    public static void Forget(string runId)
    {
        if (File.Exists(RecordOf(runId)))
        {
            File.Delete(RecordOf(runId));
        }
    }
}
