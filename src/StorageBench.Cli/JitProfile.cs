using System.Runtime;

namespace StorageBench.Cli;

/// <summary>
/// The runtime's multicore JIT for the commands that start the engine: each run records the methods it compiled (about 7,000
/// that ReadyToRun cannot hold: async state machines and generics over the engine's types), and the next run of the command
/// compiles them on a spare core ahead of their first call, much of it while the hub store's Azurite starts (a cold 200-entity
/// run about 0.15 s shorter, BENCHMARKS.md section 10). The profile lives in the hub store's folder (jit/, 0700; the file 0600), which is the
/// user's alone and which tests give a folder of their own; it holds method names, no data. A missing, stale or damaged
/// profile only means the methods are compiled on first call, as without one.
/// </summary>
internal static class JitProfile
{
    private static readonly string[] EngineCommands = ["run", "ab", "worker", "serve"];

    public static void Start(string[] args)
    {
        if (OperatingSystem.IsWindows() || args.Length == 0 || !EngineCommands.Contains(args[0], StringComparer.Ordinal))
        {
            return;
        }
        try
        {
            // Only in a store that exists: a first run's bad input leaves no folder behind (its profile would be empty anyway).
            if (!Directory.Exists(HubAzurite.Folder))
            {
                return;
            }
            string folder = Path.Combine(HubAzurite.Folder, "jit");
            Directory.CreateDirectory(folder, HubStoreFolder.PrivateFolder);
            string name = args[0] + ".jitprofile";
            // The runtime writes the profile at exit into the file as it finds it, keeping its mode: 0600, as the store's other files.
            using (new FileStream(Path.Combine(folder, name), new FileStreamOptions
            {
                Mode = FileMode.OpenOrCreate, Access = FileAccess.Write, UnixCreateMode = HubStoreFolder.PrivateFile,
            }))
            {
            }
            File.SetUnixFileMode(Path.Combine(folder, name), HubStoreFolder.PrivateFile);
            ProfileOptimization.SetProfileRoot(folder);
            ProfileOptimization.StartProfile(name);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // A folder that cannot be written: the run goes on without the profile; the hub store says why when it opens.
        }
    }
}
