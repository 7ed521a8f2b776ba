using Azure;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Models;
using Azure.Storage.Blobs.Specialized;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// What verifying every blob upload does alike, in every target account: list the step's container, delete the blobs of an
/// execution whose result was not used (discarded; the primer's are not counted), count blobs without an attempt id as
/// foreign, and hand each accepted blob to the room's own check. A missing container is a container nothing landed in.
/// </summary>
internal static class BlobListing
{
    /// <param name="Sent">Every request the listing's clients sent, the room's checks and the deletes included.</param>
    public sealed record Listed(long Discarded, long Foreign, long Sent, long Deletes);

    /// <param name="check">The room's check of one accepted blob: its container, its listing entry, its attempt, and the wire its requests count on.</param>
    public static async Task<Listed> EachAcceptedAsync(IReadOnlyList<StorageTarget> targets, string containerName, IReadOnlyCollection<string> acceptedAttempts,
        Func<BlobContainerClient, BlobItem, string, WireCounter, Task> check, CancellationToken ct)
    {
        var accepted = acceptedAttempts.ToHashSet(StringComparer.Ordinal);
        long discarded = 0, foreign = 0, sent = 0, deletes = 0;
        foreach (var target in targets)
        {
            using var clients = target.CreateSideCallClients();
            var wire = clients.BlobWire;
            var container = clients.Blobs.GetBlobContainerClient(containerName);
            try
            {
                await foreach (var item in container.GetBlobsAsync(BlobTraits.None, BlobStates.None, prefix: null, ct))
                {
                    string attempt = BlobNames.AttemptOf(item.Name);
                    if (attempt.Length == 0)
                    {
                        foreign++;
                    }
                    else if (!accepted.Contains(attempt))
                    {
                        discarded += attempt == Priming.Attempt ? 0 : 1;
                        long before = wire.Sent;
                        await container.DeleteBlobIfExistsAsync(item.Name, cancellationToken: ct).ConfigureAwait(false);
                        deletes += wire.Sent - before;
                    }
                    else
                    {
                        await check(container, item, attempt, wire).ConfigureAwait(false);
                    }
                }
            }
            catch (RequestFailedException ex) when (ex.Status == 404)
            {
                // No container: nothing landed there.
            }
            sent += wire.Sent;
        }
        return new Listed(discarded, foreign, sent, deletes);
    }

    /// <summary>Whether the blob's MD5 is what was sent; null when the blob could not be found when read (404).</summary>
    public static async Task<bool?> ContentMatchesAsync(BlobBaseClient blob, string? expectedMd5, CancellationToken ct)
    {
        if (expectedMd5 is null)
        {
            return false;
        }
        try
        {
            using var stream = await blob.OpenReadAsync(cancellationToken: ct).ConfigureAwait(false);
#pragma warning disable CA5351 // Content-MD5 is the storage service's integrity header, compared as stored: not a security use.
            using var md5 = System.Security.Cryptography.MD5.Create();
#pragma warning restore CA5351
            return Convert.ToBase64String(await md5.ComputeHashAsync(stream, ct).ConfigureAwait(false)) == expectedMd5;
        }
        catch (RequestFailedException ex) when (ex.Status == 404)
        {
            return null;
        }
    }

    /// <summary>
    /// One accepted blob read back: the room's own read of it (<paramref name="read"/>: an append blob's committed block count,
    /// a page blob's written bytes; null when not found), then, when content MD5s were kept and <paramref name="whole"/> says
    /// that answer is of a whole blob, its content. Each counted as the wire saw it, the room's read apart.
    /// </summary>
    public static async Task<ReadBack<T>> ReadBackAsync<T>(BlobBaseClient blob, WireCounter wire, Func<Task<T?>> read, Func<T, bool> whole,
        IReadOnlyDictionary<string, string>? contentMd5ByAttempt, string attempt, CancellationToken ct)
        where T : struct
    {
        long before = wire.Sent;
        T? answer = await read().ConfigureAwait(false);
        long readRequests = wire.Sent - before;
        bool? matches = answer is { } a && whole(a) && contentMd5ByAttempt is not null
            ? await ContentMatchesAsync(blob, contentMd5ByAttempt.GetValueOrDefault(attempt), ct).ConfigureAwait(false)
            : true;
        return new ReadBack<T>(answer, matches, readRequests, wire.Sent - before);
    }

    /// <param name="Answer">The room's read: null when the blob was not found.</param>
    /// <param name="Matches">Its content against what was sent: true when not read, null when not found on the read.</param>
    /// <param name="ReadRequests">What the room's read sent.</param>
    /// <param name="Requests">What both reads sent.</param>
    public readonly record struct ReadBack<T>(T? Answer, bool? Matches, long ReadRequests, long Requests) where T : struct;
}
