using System.Text.RegularExpressions;
using Azure;
using Azure.Data.Tables;
using Azure.Storage.Blobs;
using Azure.Storage.Queues;
using StorageBench.Cli;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// The hub store (the CLI's own Azurite on disk) is its user's alone: an account key of its own, which no command line
/// shows; the published development key does not open it; its folders are 0700 and its files 0600. A store from before
/// it was private is closed and keeps its data. Each test opens a store in a folder of its own.
/// </summary>
[Trait("Category", "EndToEnd")]
[System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
public class HubStoreTests(ITestOutputHelper output)
{
    [Fact]
    public async Task TheHubStoreRefusesTheDevelopmentKeyShowsItsKeyOnNoCommandLineAndItsFolderIs0700()
    {
        string folder = NewFolder();
        using (var store = await HubAzurite.OpenAsync(folder, default))
        {
            string key = KeyOf(store.ConnectionString);
            Assert.NotEqual(AzuriteServer.DevAccountKey, key);
            await new TableServiceClient(store.ConnectionString).CreateTableIfNotExistsAsync("privatecheck");

            string dev = store.ConnectionString.Replace(key, AzuriteServer.DevAccountKey, StringComparison.Ordinal);
            foreach (var refused in new Func<Task>[]
            {
                async () => { await foreach (var _ in new TableServiceClient(dev).QueryAsync()) { } },
                async () => { await foreach (var _ in new BlobServiceClient(dev).GetBlobContainersAsync()) { } },
                async () => { await foreach (var _ in new QueueServiceClient(dev).GetQueuesAsync()) { } },
            })
            {
                Assert.Equal(403, (await Assert.ThrowsAsync<RequestFailedException>(refused)).Status);
            }

            Assert.Empty(CommandLinesWith(key));
            Assert.Equal(PrivateFolder, File.GetUnixFileMode(folder));
            Assert.Empty(OpenToOthers(folder));
        }
        await StoppedAsync(folder);
    }

    [Fact]
    public async Task AStoreOthersCouldReadIsClosedOnceSaysSoInOneLineAndKeepsItsDataUnderANewKey()
    {
        string folder = NewFolder();
        string before;
        using (var first = await HubAzurite.OpenAsync(folder, default))
        {
            before = KeyOf(first.ConnectionString);
            var table = new TableServiceClient(first.ConnectionString).GetTableClient("carried");
            await table.CreateIfNotExistsAsync();
            await table.AddEntityAsync(new TableEntity("run", "1") { ["Status"] = "Completed" });
        }
        await StoppedAsync(folder);
        // As a storagebench from before left it: readable by others, and no key of its own.
        foreach (var entry in new DirectoryInfo(folder).EnumerateFileSystemInfos("*", SearchOption.AllDirectories).Append(new DirectoryInfo(folder)))
        {
            entry.UnixFileMode = entry is DirectoryInfo ? (UnixFileMode)0b111_101_101 : (UnixFileMode)0b110_100_100;
        }
        File.Delete(Path.Combine(folder, "account.key"));
        // A file that is not the store's, in a folder STORAGEBENCH_HUB_DIR named: left as it is.
        string theirs = Path.Combine(folder, "theirs.txt");
        await File.WriteAllTextAsync(theirs, "not the store's");
        File.SetUnixFileMode(theirs, (UnixFileMode)0b110_100_100);

        using (var second = await HubAzurite.OpenAsync(folder, default))
        {
            output.WriteLine(second.Notice);
            Assert.Contains("was readable by other users", second.Notice);
            Assert.DoesNotContain('\n', second.Notice!);
            Assert.NotEqual(before, KeyOf(second.ConnectionString));
            var row = await new TableServiceClient(second.ConnectionString).GetTableClient("carried").GetEntityAsync<TableEntity>("run", "1");
            Assert.Equal("Completed", row.Value.GetString("Status"));
            Assert.Equal(PrivateFolder, File.GetUnixFileMode(folder));
            Assert.Equal([$"{theirs} 644"], OpenToOthers(folder));
            // Said once: a process that joins it now has nothing to say.
            using var third = await HubAzurite.OpenAsync(folder, default);
            Assert.Null(third.Notice);
            Assert.Equal(second.ConnectionString, third.ConnectionString);
        }
        await StoppedAsync(folder);
    }

    /// <summary>
    /// After its last process, the store stays up for the idle time, so the user's next run joins it instead of starting it;
    /// then it stops by itself (its data saved).
    /// </summary>
    [Fact]
    public async Task TheStoreStaysUpForTheIdleTimeAfterItsLastProcessSoTheNextRunJoinsItThenStops()
    {
        string folder = NewFolder();
        using (var first = await HubAzurite.OpenAsync(folder, default, idleSeconds: 20))
        {
            Assert.True(first.Started);
        }
        using (var next = await HubAzurite.OpenAsync(folder, default, idleSeconds: 20))
        {
            Assert.False(next.Started);
        }
        await StoppedAsync(folder);
    }

    /// <summary>
    /// A run opens a returning user's store while it checks its input (EarlyHubStore): input refused after all leaves the store
    /// as it was. An Azurite its opener started stops at once, when nobody else joined it; one another process holds stays up.
    /// </summary>
    [Fact]
    public async Task AStoreItsOpenerDidNotUseStopsAtOnceUnlessAnotherProcessHoldsIt()
    {
        string alone = NewFolder();
        var only = await HubAzurite.OpenAsync(alone, default, idleSeconds: 900);
        Assert.True(only.Started);
        int wrapper = StateOf(alone).Pid;
        await only.LetGoUnusedAsync();
        Assert.False(File.Exists(Path.Combine(alone, "azurite.json")));
        Assert.False(TestHubStore.Alive(wrapper));

        string shared = NewFolder();
        var opener = await HubAzurite.OpenAsync(shared, default, idleSeconds: 900);
        using (var other = await HubAzurite.OpenAsync(shared, default, idleSeconds: 900))
        {
            Assert.False(other.Started);
            await opener.LetGoUnusedAsync();
            await new TableServiceClient(other.ConnectionString).CreateTableIfNotExistsAsync("stillup");
        }
        Assert.True(Platform.TerminateGroup(StateOf(shared).Pid));
        await StoppedAsync(shared);
    }

    /// <summary>A spec refused while the returning user's store was starting for it: the command exits 2 and leaves no Azurite running.</summary>
    [Fact]
    public async Task ARefusedSpecLeavesAStoppedStoreStopped()
    {
        string folder = NewFolder();
        using (var first = await HubAzurite.OpenAsync(folder, default, idleSeconds: 0))
        {
            Assert.True(first.Started);
        }
        await StoppedAsync(folder);
        string spec = Path.Combine(Path.GetDirectoryName(folder)!, "bad.json");
        await File.WriteAllTextAsync(spec, "{ \"scenario\": \"s\", \"tableInsert\": { \"entityCount\": -5 } }");

        var (exit, output) = await CliProcess.RunAsync(new Dictionary<string, string> { [HubAzurite.FolderSetting] = folder, [HubAzurite.IdleSetting] = "900" },
            "run", "--spec", spec);

        Assert.True(exit == 2, output);
        Assert.Contains("entityCount", output, StringComparison.Ordinal);
        Assert.DoesNotContain("Hub store:", output, StringComparison.Ordinal);
        Assert.False(File.Exists(Path.Combine(folder, "azurite.json")));
        // Killed as its start was canceled: gone within moments, never left to its idle time.
        await Waits.UntilAsync(() => Task.FromResult(CommandLinesWith(Path.Combine(folder, "data")).Count == 0), TimeSpan.FromSeconds(30), "the store's Azurite to be gone");
    }

    private sealed record State(int Pid);

    private static State StateOf(string folder) => System.Text.Json.JsonSerializer.Deserialize<State>(File.ReadAllText(Path.Combine(folder, "azurite.json")))!;

    private static string KeyOf(string connectionString) => Regex.Match(connectionString, "AccountKey=([^;]+)").Groups[1].Value;

    /// <summary>Every process whose command line holds <paramref name="secret"/> (what any local user can read in /proc/PID/cmdline).</summary>
    private static List<string> CommandLinesWith(string secret)
    {
        var found = new List<string>();
        foreach (string dir in Directory.EnumerateDirectories("/proc").Where(d => int.TryParse(Path.GetFileName(d), out _)))
        {
            try
            {
                if (File.ReadAllText(Path.Combine(dir, "cmdline")).Contains(secret, StringComparison.Ordinal))
                {
                    found.Add(dir);
                }
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                // Ended while listed.
            }
        }
        return found;
    }

    /// <summary>Once no process holds the store, its Azurite stops and saves (its state file goes): before the folder is reused or deleted.</summary>
    private static Task StoppedAsync(string folder) =>
        Waits.UntilAsync(() => Task.FromResult(!File.Exists(Path.Combine(folder, "azurite.json"))), TimeSpan.FromMinutes(2), "the hub store's Azurite to stop");

    private const UnixFileMode PrivateFolder = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute;

    /// <summary>Every folder other than 0700 and file other than 0600 in <paramref name="root"/>, with its mode.</summary>
    private static List<string> OpenToOthers(string root) =>
        [.. new DirectoryInfo(root).EnumerateFileSystemInfos("*", SearchOption.AllDirectories)
            .Where(e => e.UnixFileMode != (e is DirectoryInfo ? PrivateFolder : UnixFileMode.UserRead | UnixFileMode.UserWrite))
            .Select(e => $"{e.FullName} {Convert.ToString((int)e.UnixFileMode, 8)}")];

    private static string NewFolder() => Path.Combine(Directory.CreateTempSubdirectory("sb-hubstore").FullName, "hub");
}
