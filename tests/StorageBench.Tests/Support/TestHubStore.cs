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

    /// <summary>
    /// The results tables of the CLI's runs. The test process then holds the hub store until it exits (the kernel drops its
    /// lock), so its Azurite is not started again for each CLI the tests run.
    /// </summary>
    public static async Task<ResultsTableStore> ResultsAsync() => new((await Plane.Value).Results);

    [ModuleInitializer]
    internal static void Use()
    {
        Environment.SetEnvironmentVariable(HubAzurite.FolderSetting, Folder);
        AppDomain.CurrentDomain.ProcessExit += (_, _) =>
        {
            try
            {
                Directory.Delete(Folder, recursive: true);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                // Its Azurite may still be saving; the folder is in the temp directory.
            }
        };
    }
}
