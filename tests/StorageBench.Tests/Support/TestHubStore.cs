using System.Runtime.CompilerServices;
using StorageBench.Cli;
using StorageBench.Engine.ResultsStore;

namespace StorageBench.Tests;

/// <summary>
/// Every CLI the tests run, in this process or as a child, keeps its hub store (the control plane's Azurite on disk) in a
/// folder of this test run, never in the user's ~/.local/share/storagebench. The tests read the CLI's results there.
/// </summary>
internal static class TestHubStore
{
    public static string Folder { get; } = Path.Combine(Path.GetTempPath(), $"storagebench-tests-hub-{Environment.ProcessId}");

    private static readonly Lazy<Task<ControlPlane>> Plane = new(() => ControlPlane.LocalAsync(TextWriter.Null, default));

    /// <summary>The results tables of the CLI's runs (the test process holds the hub store until it exits; the kernel then drops its lock).</summary>
    public static async Task<ResultsTableStore> ResultsAsync() => new((await Plane.Value).Results);

    [ModuleInitializer]
    internal static void Use()
    {
        Environment.SetEnvironmentVariable(HubAzurite.FolderSetting, Folder);
        // A store of the tests' own stops with its last process, as a test's own folder must (never the 15 minutes a user's stays up).
        Environment.SetEnvironmentVariable(HubAzurite.IdleSetting, "0");
        // Held from the start: every CLI the tests run joins the running store instead of starting its Azurite (seconds each on a busy machine).
        _ = Task.Run(() => Plane.Value);
        // Not deleted at exit: its Azurite stops only once this process is gone (the kernel drops the lock), and Azurite saves its
        // state as it stops; without its folder it hangs for good. The next test run deletes the folders of stopped stores.
        _ = Task.Run(DeleteStoppedStores);
    }

    /// <summary>The folders of earlier test runs whose process has ended and whose Azurite has stopped (its wrapper removed azurite.json).</summary>
    private static void DeleteStoppedStores()
    {
        foreach (string folder in Directory.EnumerateDirectories(Path.GetTempPath(), "storagebench-tests-hub-*"))
        {
            if (!int.TryParse(Path.GetFileName(folder)["storagebench-tests-hub-".Length..], out int pid) || pid == Environment.ProcessId
                || Alive(pid) || File.Exists(Path.Combine(folder, "azurite.json")))
            {
                continue;
            }
            try
            {
                Directory.Delete(folder, recursive: true);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                // Another test run is deleting it, or it is not ours to delete.
            }
        }
    }

    /// <summary>Whether the process <paramref name="pid"/> is still there (a store's wrapper, say).</summary>
    internal static bool Alive(int pid)
    {
        try
        {
            using var process = System.Diagnostics.Process.GetProcessById(pid);
            return !process.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }
}
