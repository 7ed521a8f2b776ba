using System.Diagnostics;
using Azure.Data.Tables;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Targets;

namespace StorageBench.Tests;

/// <summary>Waits on what the product does (a row in storage, a status), never on a guess of how long it takes; every wait is bounded.</summary>
internal static class Waits
{
    /// <summary>Polls <paramref name="condition"/> until it holds; fails the test with <paramref name="what"/> after <paramref name="limit"/>.</summary>
    public static async Task UntilAsync(Func<Task<bool>> condition, TimeSpan limit, string what)
    {
        var clock = Stopwatch.StartNew();
        while (!await condition())
        {
            if (clock.Elapsed > limit)
            {
                throw new Xunit.Sdk.XunitException($"not within {limit.TotalSeconds:0} s: {what}");
            }
            await Task.Delay(100);
        }
    }

    /// <summary>Polls <paramref name="poll"/> until <paramref name="done"/> accepts its value, which it returns; bounded by <paramref name="limit"/>.</summary>
    public static async Task<T> UntilAsync<T>(Func<Task<T>> poll, Func<T, bool> done, TimeSpan limit, string what)
    {
        T value = default!;
        await UntilAsync(async () => done(value = await poll()), limit, what);
        return value;
    }

    /// <summary>Until the table of one of the run's steps holds at least <paramref name="entities"/> entities: the run is writing (storage says so).</summary>
    public static Task ForEntitiesAsync(StorageTarget target, string? runId, long entities, TimeSpan limit) =>
        UntilAsync(async () =>
        {
            var cleaner = new TargetCleaner([target]);
            var tables = runId is null
                ? (await cleaner.CreatedBeforeAsync(DateTime.UtcNow.AddDays(1), default)).Where(l => l.Kind == "table")
                : (await cleaner.OfRunAsync(runId, default)).Where(l => l.Kind == "table");
            var client = new TableServiceClient(target.ConnectionString);
            foreach (var table in tables)
            {
                long n = 0;
                await foreach (var _ in client.GetTableClient(table.Name).QueryAsync<TableEntity>(select: ["PartitionKey"], maxPerPage: 1000))
                {
                    if (++n >= entities)
                    {
                        return true;
                    }
                }
            }
            return false;
        }, limit, $"{entities} entities stored by run {runId ?? "(any)"}");

    /// <summary>Until the containers of the runs in <paramref name="target"/> hold at least <paramref name="blobs"/> committed blobs: a blob run is writing.</summary>
    public static Task ForBlobsAsync(StorageTarget target, long blobs, TimeSpan limit) =>
        UntilAsync(async () =>
        {
            var service = new Azure.Storage.Blobs.BlobServiceClient(target.ConnectionString);
            long n = 0;
            foreach (var container in (await new TargetCleaner([target]).CreatedBeforeAsync(DateTime.UtcNow.AddDays(1), default)).Where(l => l.Kind == "container"))
            {
                await foreach (var _ in service.GetBlobContainerClient(container.Name).GetBlobsAsync())
                {
                    if (++n >= blobs)
                    {
                        return true;
                    }
                }
            }
            return false;
        }, limit, $"{blobs} blobs committed");
}
