using System.Diagnostics;
using Microsoft.Win32.SafeHandles;

namespace StorageBench.Cli;

/// <summary>
/// The hub store's locks: flock(2) on start.lock (one process starts or stops its Azurite at a time) and users.lock (shared
/// by every process that uses the store; exclusive for its wrapper once none does).
/// </summary>
internal static class HubStoreLocks
{
    /// <summary>Starting or stopping Azurite takes seconds; a lock held longer than this is a fault worth one line.</summary>
    public static readonly TimeSpan LockWait = TimeSpan.FromMinutes(2);

    /// <summary>The lock, waiting up to <see cref="LockWait"/>; past it, one line saying which file stayed locked.</summary>
    public static async Task<SafeFileHandle> TakeAsync(string path, bool exclusive, CancellationToken ct) =>
        await TryTakeAsync(path, exclusive, LockWait, ct).ConfigureAwait(false)
        ?? throw new IOException($"{path} stayed locked for {LockWait.TotalSeconds:0} s: another storagebench process is starting or stopping the hub store's Azurite");

    /// <summary>
    /// Opens <paramref name="path"/> holding flock(2) on it, exclusive or shared, waiting (polled, so a canceled wait
    /// returns) while another process holds it the other way; null when it is still held after <paramref name="wait"/>. .NET
    /// itself flocks a file it opens (exclusive for FileShare.None, else shared) and throws when that is contended, so its
    /// lock is the one asked for; the explicit call makes sure of it where .NET skips locking (network file systems).
    /// </summary>
    public static async Task<SafeFileHandle?> TryTakeAsync(string path, bool exclusive, TimeSpan wait, CancellationToken ct)
    {
        var waited = Stopwatch.StartNew();
        while (true)
        {
            SafeFileHandle? file = null;
            try
            {
                file = File.OpenHandle(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, exclusive ? FileShare.None : FileShare.ReadWrite | FileShare.Delete);
                if (Platform.TryLock(file, exclusive))
                {
                    HubStoreFolder.Close(path, HubStoreFolder.PrivateFile);
                    return file;
                }
                file.Dispose();
            }
            catch (IOException)
            {
                file?.Dispose();
            }
            if (waited.Elapsed >= wait)
            {
                return null;
            }
            await Task.Delay(20, ct).ConfigureAwait(false);
        }
    }
}
