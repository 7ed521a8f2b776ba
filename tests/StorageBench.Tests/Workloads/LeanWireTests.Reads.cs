using StorageBench.Benchmarks;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads.TableRead;

namespace StorageBench.Tests;

/// <summary>tableRead's requests: a point read and query pages (the first, and one after a continuation) on both drivers.</summary>
public partial class LeanWireTests
{
    [Theory]
    [InlineData(1024)]
    [InlineData(70_000)]   // two payload properties, the second of 4,464 bytes
    public async Task PointReadsAreTheSdksOnTheWire(int entityBytes)
    {
        var seeded = new SeededEntities(1_000, 1, entityBytes);
        await using var server = await FloorServer.StartAsync(capture: true);
        server.Seeded = seeded;
        using var clients = StorageTarget.FromConnectionString(server.ConnectionString).CreateClients(new ClientSettings());
        var table = clients.Tables.GetTableClient("wiretable");

        foreach (ITableReads driver in new ITableReads[] { new SdkTableReads(table, seeded), new LeanTableReads(clients.Lean, clients.TableWire, table.Name, seeded) })
        {
            using (driver)
            {
                driver.PreparePoint("p00000", 123);
                Assert.Equal(new ReadAnswer(1, 0, false), await driver.SendAsync());
            }
        }

        var (fromSdk, fromLean) = Pair(server);
        AssertSameRequest(fromSdk, fromLean);
        Assert.Equal("GET", fromLean.Method);
        Assert.Equal("/devstoreaccount1/wiretable(PartitionKey='p00000',RowKey='seed-000000123')", fromLean.Path);
        Assert.Empty(fromLean.Body);
        foreach (var request in new[] { fromSdk, fromLean })
        {
            Assert.Equal(SharedKeyLite(request), request.Headers["Authorization"]);
        }
    }

    [Fact]
    public async Task QueryPagesAreTheSdksOnTheWireWithTheInt64Literal()
    {
        var seeded = new SeededEntities(1_000, 1, 300);
        await using var server = await FloorServer.StartAsync(capture: true);
        server.Seeded = seeded;
        using var clients = StorageTarget.FromConnectionString(server.ConnectionString).CreateClients(new ClientSettings());
        var table = clients.Tables.GetTableClient("wiretable");

        foreach (ITableReads driver in new ITableReads[] { new SdkTableReads(table, seeded), new LeanTableReads(clients.Lean, clients.TableWire, table.Name, seeded) })
        {
            using (driver)
            {
                // 5 entities in pages of 3: a first page, then one sent with the continuation the first returned.
                driver.PrepareQuery("p00000", 10, 15, 3);
                Assert.Equal(new ReadAnswer(3, 0, true), await driver.SendAsync());
                Assert.Equal(new ReadAnswer(2, 0, false), await driver.SendAsync());
            }
        }

        var captured = server.Captured.ToArray();
        Assert.Equal(4, captured.Length);
        foreach (var (fromSdk, fromLean) in new[] { (captured[0], captured[2]), (captured[1], captured[3]) })
        {
            AssertSameRequest(fromSdk, fromLean);
            Assert.Equal("/devstoreaccount1/wiretable()", fromLean.Path);
            foreach (var request in new[] { fromSdk, fromLean })
            {
                Assert.Equal(SharedKeyLite(request), request.Headers["Authorization"]);
            }
        }
        Assert.Equal("PartitionKey eq 'p00000' and Sequence ge 2147483658L and Sequence lt 2147483663L", Query(captured[2].Query)["$filter"]);
        Assert.Equal("seed-000000013", Query(captured[3].Query)["NextRowKey"]);
    }

    /// <summary>The drivers' checks must be able to fail: an answer for other entities than asked is counted wrong by both.</summary>
    [Fact]
    public async Task BothDriversCountAnEntityOtherThanTheSeededOneAsWrong()
    {
        await using var server = await FloorServer.StartAsync();
        // The server answers as if the payload were 100 bytes; the drivers expect 101.
        server.Seeded = new SeededEntities(1_000, 1, 100);
        var expected = new SeededEntities(1_000, 1, 101);
        using var clients = StorageTarget.FromConnectionString(server.ConnectionString).CreateClients(new ClientSettings());
        var table = clients.Tables.GetTableClient("wiretable");
        foreach (ITableReads driver in new ITableReads[] { new SdkTableReads(table, expected), new LeanTableReads(clients.Lean, clients.TableWire, table.Name, expected) })
        {
            using (driver)
            {
                driver.PreparePoint("p00000", 7);
                Assert.Equal(1, (await driver.SendAsync()).Wrong);
                driver.PrepareQuery("p00000", 0, 4, 10);
                Assert.Equal(new ReadAnswer(4, 4, false), await driver.SendAsync());
            }
        }
    }
}
