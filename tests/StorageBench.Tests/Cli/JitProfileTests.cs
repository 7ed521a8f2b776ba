using StorageBench.Cli;

namespace StorageBench.Tests;

/// <summary>
/// A command that starts the engine records the methods it compiled in the hub store's folder (jit/, 0700, its file 0600) for the
/// next run to compile ahead (the runtime's multicore JIT); other commands record nothing, and a store that does not exist
/// yet is not created for it.
/// </summary>
[Trait("Category", "EndToEnd")]
[System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
public class JitProfileTests
{
    private const UnixFileMode Private = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute;

    [Fact]
    public async Task RunRecordsItsProfileInTheStoresPrivateFolderAndNothingElseWritesOne()
    {
        string store = Path.Combine(Path.GetTempPath(), $"jit-store-{Guid.NewGuid():N}");
        string missing = Path.Combine(Path.GetTempPath(), $"jit-missing-{Guid.NewGuid():N}");
        Directory.CreateDirectory(store, Private);
        try
        {
            string spec = Path.Combine(store, "absent.json");
            var (exit, output) = await CliProcess.RunAsync(new Dictionary<string, string> { [HubAzurite.FolderSetting] = store }, "run", "--spec", spec);
            Assert.True(exit == 2, output);
            string profile = Path.Combine(store, "jit", "run.jitprofile");
            Assert.True(new FileInfo(profile).Length > 0, $"{profile} was not written");
            Assert.Equal(Private, File.GetUnixFileMode(Path.GetDirectoryName(profile)!));
            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(profile));

            var (queryExit, queryOutput) = await CliProcess.RunAsync(new Dictionary<string, string> { [HubAzurite.FolderSetting] = store }, "query", "--help");
            Assert.True(queryExit == 0, queryOutput);
            Assert.Equal(["run.jitprofile"], Directory.EnumerateFiles(Path.Combine(store, "jit")).Select(Path.GetFileName));

            (exit, output) = await CliProcess.RunAsync(new Dictionary<string, string> { [HubAzurite.FolderSetting] = missing }, "run", "--spec", spec);
            Assert.True(exit == 2, output);
            Assert.False(Directory.Exists(missing));
        }
        finally
        {
            Directory.Delete(store, recursive: true);
        }
    }
}
