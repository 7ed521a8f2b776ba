using Azure;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Targets;

namespace StorageBench.Orchestration.Activities;

/// <summary>
/// A step's own table and container in every target account: created before its slices, deleted after them (also after
/// a failure). Each returns the requests that took, counted on the wire, for the cost estimate.
/// </summary>
internal static class StepStorage
{
    public static Task<TargetRequests> CreateAsync(IReadOnlyList<StorageTarget> targets, StepTargets input, CancellationToken ct) =>
        InEachAccountAsync(targets, async (clients, t) =>
        {
            if (input.Table)
            {
                await clients.Tables.CreateTableIfNotExistsAsync(input.TableName, t).ConfigureAwait(false);
            }
            if (input.Blob)
            {
                await clients.Blobs.GetBlobContainerClient(input.ContainerName).CreateIfNotExistsAsync(cancellationToken: t).ConfigureAwait(false);
            }
        }, ct);

    /// <summary>Only the kinds the step uses (it creates no other), whichever exist: safe after any failure.</summary>
    public static Task<TargetRequests> DeleteAsync(IReadOnlyList<StorageTarget> targets, StepTargets input, CancellationToken ct) =>
        InEachAccountAsync(targets, async (clients, t) =>
        {
            if (input.Table)
            {
                try
                {
                    await clients.Tables.DeleteTableAsync(input.TableName, t).ConfigureAwait(false);
                }
                catch (RequestFailedException ex) when (ex.Status == 404)
                {
                    // Already gone: what deleting it was for.
                }
            }
            if (input.Blob)
            {
                await clients.Blobs.GetBlobContainerClient(input.ContainerName).DeleteIfExistsAsync(cancellationToken: t).ConfigureAwait(false);
            }
        }, ct);

    private static async Task<TargetRequests> InEachAccountAsync(IReadOnlyList<StorageTarget> targets, Func<StorageClients, CancellationToken, Task> work, CancellationToken ct)
    {
        long tables = 0, containers = 0;
        string? server = null;
        foreach (var target in targets)
        {
            using var clients = target.CreateSideCallClients();
            await work(clients, ct).ConfigureAwait(false);
            tables += clients.TableWire.Sent;
            containers += clients.BlobWire.Sent;
            server ??= clients.TableWire.Server ?? clients.BlobWire.Server;
        }
        return new TargetRequests(tables, containers) { Server = server };
    }
}
