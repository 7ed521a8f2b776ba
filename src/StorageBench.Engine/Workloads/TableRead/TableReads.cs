using Azure;
using Azure.Data.Tables;

namespace StorageBench.Engine.Workloads.TableRead;

/// <summary>What one read request brought back: entities returned, of them how many were not what was seeded, and whether a query has a next page.</summary>
public readonly record struct ReadAnswer(int Entities, int Wrong, bool More);

/// <summary>
/// One in-flight loop's reads, as <c>client.driver</c> chooses: <see cref="PreparePoint"/> or <see cref="PrepareQuery"/>
/// sets up the next read (before the loop waits for its turn); <see cref="SendAsync"/> sends one request — the point
/// read, or the query's next page — checks every entity it returns against <see cref="SeededEntities"/>, and throws as
/// the SDK does for a failure, so the workload measures and classifies both drivers with the same code.
/// </summary>
public interface ITableReads : IDisposable
{
    /// <summary>Get Entity of entity n in the partition.</summary>
    void PreparePoint(string partitionKey, long n);

    /// <summary>A query of the partition's entities whose Sequence lies in [Sequence(lo), Sequence(hi)), pages of up to <paramref name="pageSize"/>.</summary>
    void PrepareQuery(string partitionKey, long lo, long hi, int pageSize);

    Task<ReadAnswer> SendAsync();

    /// <summary>The loop's reads on the driver the spec chose.</summary>
    internal static ITableReads For(ClientSettings client, StorageClients clients, TableClient table, SeededEntities seeded) =>
        client.Driver == ClientSettings.SdkDriver
            ? new SdkTableReads(table, seeded)
            : new LeanTableReads(clients.Lean, clients.TableWire, table.Name, seeded);

    /// <summary>
    /// The query's filter as the SDK's filter builder writes it: the Int64 bounds carry the OData <c>L</c> suffix
    /// (2147483648L); without it the service takes them for another type and matches no Int64 value above Int32's range.
    /// </summary>
    /// <remarks>The property's name is written out, not interpolated: the builder quotes every value it is given, and 'Sequence' is a string, which matches nothing.</remarks>
    public static string QueryFilter(string partitionKey, long lo, long hi) =>
        TableClient.CreateQueryFilter($"PartitionKey eq {partitionKey} and Sequence ge {SeededEntities.Sequence(lo)} and Sequence lt {SeededEntities.Sequence(hi)}");
}

/// <summary>The Azure SDK path (<c>client.driver: "sdk"</c>): GetEntityAsync, and QueryAsync's pages one request at a time.</summary>
public sealed class SdkTableReads(TableClient table, SeededEntities seeded) : ITableReads
{
    private string _partitionKey = "";
    private long _n, _next, _hi;
    private bool _query;
    private IAsyncEnumerator<Page<TableEntity>>? _pages, _finished;

    public void PreparePoint(string partitionKey, long n)
    {
        (_partitionKey, _n, _query) = (partitionKey, n, false);
    }

    public void PrepareQuery(string partitionKey, long lo, long hi, int pageSize)
    {
        (_partitionKey, _next, _hi, _query) = (partitionKey, lo, hi, true);
        _finished = _pages;
        _pages = table.QueryAsync<TableEntity>(ITableReads.QueryFilter(partitionKey, lo, hi), maxPerPage: pageSize).AsPages().GetAsyncEnumerator();
    }

    public async Task<ReadAnswer> SendAsync()
    {
        if (_finished is not null)
        {
            await _finished.DisposeAsync().ConfigureAwait(false);
            _finished = null;
        }
        int partition = PartitionIndex(_partitionKey);
        if (!_query)
        {
            var entity = (await table.GetEntityAsync<TableEntity>(_partitionKey, SeededEntities.RowKey(_n)).ConfigureAwait(false)).Value;
            return new ReadAnswer(1, seeded.Matches(entity, _n, partition) ? 0 : 1, false);
        }
        if (!await _pages!.MoveNextAsync().ConfigureAwait(false))
        {
            return new ReadAnswer(0, 0, false);
        }
        var page = _pages.Current;
        int wrong = 0;
        foreach (var entity in page.Values)
        {
            // The k-th entity of a query is entity lo + k: keys sort as numbers do ("seed-{n:D9}").
            wrong += _next < _hi && seeded.Matches(entity, _next, partition) ? 0 : 1;
            _next++;
        }
        return new ReadAnswer(page.Values.Count, wrong, page.ContinuationToken is not null);
    }

    /// <summary>The partition's number from its key ("p00007" is 7).</summary>
    internal static int PartitionIndex(string partitionKey) => int.Parse(partitionKey.AsSpan(1), System.Globalization.CultureInfo.InvariantCulture);

    public void Dispose()
    {
        // An AsyncPageable's page enumerator holds no connection between pages: its disposal completes at once.
        _finished?.DisposeAsync().AsTask().GetAwaiter().GetResult();
        _pages?.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }
}
