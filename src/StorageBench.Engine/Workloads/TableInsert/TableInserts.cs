using Azure.Data.Tables;

namespace StorageBench.Engine.Workloads.TableInsert;

/// <summary>
/// One in-flight loop's insert request, as <c>client.driver</c> chooses: <see cref="Prepare"/> builds it
/// (before the loop waits for its turn), <see cref="SendAsync"/> sends it and throws as the SDK does for
/// a failure, so the workload measures and classifies both drivers with the same code.
/// </summary>
public interface ITableInserts : IDisposable
{
    void Prepare(string partition, string attempt, int slice, long batch, int size);

    Task SendAsync();

    /// <summary>The loop's request on the driver the spec chose.</summary>
    internal static ITableInserts For(ClientSettings client, StorageClients clients, TableClient table, EntityPayload payload, int batchSize) =>
        client.Driver == ClientSettings.SdkDriver
            ? new SdkTableInserts(table, payload, batchSize)
            : new LeanTableInserts(clients.Lean, clients.TableWire, table.Name, payload, batchSize);
}

/// <summary>The Azure SDK path (<c>client.driver: "sdk"</c>): TableEntity objects, SubmitTransactionAsync / AddEntityAsync.</summary>
public sealed class SdkTableInserts(TableClient table, EntityPayload payload, int batchSize) : ITableInserts
{
    private readonly List<TableTransactionAction> _actions = new(batchSize);

    public void Prepare(string partition, string attempt, int slice, long batch, int size)
    {
        _actions.Clear();
        for (int i = 0; i < size; i++)
        {
            _actions.Add(new TableTransactionAction(TableTransactionActionType.Add, payload.NewEntity(partition, TableInsertSlice.RowKey(attempt, slice, batch, i))));
        }
    }

    public async Task SendAsync()
    {
        if (batchSize == 1)
        {
            await table.AddEntityAsync(_actions[0].Entity).ConfigureAwait(false);
        }
        else
        {
            await table.SubmitTransactionAsync(_actions).ConfigureAwait(false);
        }
    }

    public void Dispose()
    {
    }
}
