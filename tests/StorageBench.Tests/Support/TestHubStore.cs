using System.Runtime.CompilerServices;
using StorageBench.Cli;

namespace StorageBench.Tests;

/// <summary>
/// Every CLI the tests run, in this process or as a child, keeps its hub store (the control plane's Azurite on disk) in a
/// folder of this test run, never in the user's ~/.local/share/storagebench. Its Azurite stops once no CLI holds it.
/// </summary>
internal static class TestHubStore
{
    public static string Folder { get; } = Path.Combine(Path.GetTempPath(), $"storagebench-tests-hub-{Environment.ProcessId}");

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
