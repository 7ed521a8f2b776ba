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
        InEachAccountAsync(targets, input, (clients, table, t) => clients.Tables.CreateTableIfNotExistsAsync(table, t),
            (clients, container, t) => clients.Blobs.GetBlobContainerClient(container).CreateIfNotExistsAsync(cancellationToken: t), ct);

    /// <summary>Only the ones the step uses (it creates no other), whichever exist: safe after any failure.</summary>
    public static Task<TargetRequests> DeleteAsync(IReadOnlyList<StorageTarget> targets, StepTargets input, CancellationToken ct) =>
        InEachAccountAsync(targets, input, async (clients, table, t) =>
        {
            try
            {
                await clients.Tables.DeleteTableAsync(table, t).ConfigureAwait(false);
            }
            catch (RequestFailedException ex) when (ex.Status == 404)
            {
                // Already gone: what deleting it was for.
            }
        }, (clients, container, t) => clients.Blobs.GetBlobContainerClient(container).DeleteIfExistsAsync(cancellationToken: t), ct);

    /// <summary>Does <paramref name="onTable"/> and <paramref name="onContainer"/> for each of the step's tables and containers in every account, counting each one's requests on the wire.</summary>
    private static async Task<TargetRequests> InEachAccountAsync(IReadOnlyList<StorageTarget> targets, StepTargets input,
        Func<StorageClients, string, CancellationToken, Task> onTable, Func<StorageClients, string, CancellationToken, Task> onContainer, CancellationToken ct)
    {
        long tables = 0, containers = 0;
        var byName = new Dictionary<string, long>(StringComparer.Ordinal);
        string? server = null;
        foreach (var target in targets)
        {
            using var clients = target.CreateSideCallClients();
            foreach (string table in input.Tables)
            {
                long before = clients.TableWire.Sent;
                await onTable(clients, table, ct).ConfigureAwait(false);
                byName[table] = byName.GetValueOrDefault(table) + clients.TableWire.Sent - before;
            }
            foreach (string container in input.Containers)
            {
                long before = clients.BlobWire.Sent;
                await onContainer(clients, container, ct).ConfigureAwait(false);
                byName[container] = byName.GetValueOrDefault(container) + clients.BlobWire.Sent - before;
            }
            tables += clients.TableWire.Sent;
            containers += clients.BlobWire.Sent;
            server ??= clients.TableWire.Server ?? clients.BlobWire.Server;
        }
        return new TargetRequests(tables, containers) { Server = server, ByName = byName };
    }
}
