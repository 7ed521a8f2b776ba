using System.Security.Cryptography;

namespace StorageBench.Cli;

/// <summary>
/// The hub store's folder is its user's alone: folders 0700, files 0600, and the account key of its Azurite in a file of
/// its own, so neither the published development key nor another local user opens the runs' results, signals and queues.
/// </summary>
internal static class HubStoreFolder
{
    /// <summary>The account's key (base64, 64 random bytes), written once; every CLI process of the user reads it from here.</summary>
    public const string KeyFileName = "account.key";

    public const UnixFileMode PrivateFolder = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute;

    public const UnixFileMode PrivateFile = UnixFileMode.UserRead | UnixFileMode.UserWrite;

    /// <summary>The files the store keeps beside its data folder: only these (and data/) are closed in a store from before.</summary>
    private static readonly string[] Files = ["start.lock", "users.lock", "azurite.json", "azurite.log", KeyFileName, "opened", "idle.mark"];

    /// <summary>
    /// Creates the folder (and its data folder) 0700. A folder that others could read (a store from before it was private)
    /// is closed, with the store's files and data in it (nothing else: STORAGEBENCH_HUB_DIR may name a folder that holds
    /// more): returns true then, so the caller can say so once.
    /// </summary>
    public static bool Prepare(string folder)
    {
        bool existed = Directory.Exists(folder);
        Directory.CreateDirectory(folder);
        bool opened = existed && !OperatingSystem.IsWindows() && (File.GetUnixFileMode(folder) & ~PrivateFolder) != 0;
        try
        {
            Close(folder, PrivateFolder);
        }
        catch (UnauthorizedAccessException ex)
        {
            throw new LocalSetupException($"the hub store's folder {folder} is not yours to make private (0700): {ex.Message}; set STORAGEBENCH_HUB_DIR to a folder of your own", ex);
        }
        string data = Path.Combine(folder, "data");
        Directory.CreateDirectory(data);
        if (opened)
        {
            // Its data stays: the account keeps its name, only its key changes.
            foreach (var entry in new DirectoryInfo(data).EnumerateFileSystemInfos("*", SearchOption.AllDirectories))
            {
                Close(entry.FullName, entry is DirectoryInfo ? PrivateFolder : PrivateFile);
            }
            foreach (string file in Files.Select(f => Path.Combine(folder, f)).Where(File.Exists))
            {
                Close(file, PrivateFile);
            }
        }
        Close(data, PrivateFolder);
        return opened;
    }

    /// <summary>The store's account key: read from <see cref="KeyFileName"/>, or made and written there (0600) the first time.</summary>
    /// <remarks>Called under start.lock: no two processes make a key at once.</remarks>
    public static string Key(string folder)
    {
        string file = Path.Combine(folder, KeyFileName);
        if (File.Exists(file) && File.ReadAllText(file).Trim() is { Length: > 0 } key)
        {
            return key;
        }
        string made = Convert.ToBase64String(RandomNumberGenerator.GetBytes(64));
        // Closed while still empty, before the key is in it.
        File.WriteAllText(file, "");
        Close(file, PrivateFile);
        File.WriteAllText(file, made);
        return made;
    }

    /// <summary>A file of the store written whole, 0600.</summary>
    public static async Task WriteAsync(string file, string text)
    {
        await File.WriteAllTextAsync(file, text, CancellationToken.None).ConfigureAwait(false);
        Close(file, PrivateFile);
    }

    /// <summary>chmod: the store runs where flock, setsid and sh do (not Windows).</summary>
    public static void Close(string path, UnixFileMode mode)
    {
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(path, mode);
        }
    }
}
