using System.Text.Json;
using StorageBench.Cli;
using StorageBench.Engine;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>`storagebench run --prices FILE` against Azurite: the estimate follows the file, every report shows it, and a bad file starts nothing.</summary>
[Trait("Category", "EndToEnd")]
[Collection(ResultsAzuriteCollection.Name)]
public class CostCliTests(AzuriteFixture azurite)
{
    private const string Spec = """
        { "scenario": "cost-cli", "startDelaySeconds": 1,
          "tableInsert": { "entityCount": 1000, "entitySizeBytes": 256, "batchSize": 100, "slices": 2 },
          "blobUpload": { "blobCount": 2, "blobSizeBytes": 200000, "blockSizeBytes": 50000, "slices": 1 } }
        """;

    /// <summary>Round prices in another currency, nothing for capacity: the total is then exactly the requests' sum.</summary>
    private const string Prices = """
        // A test's price table.
        { "currency": "EUR", "region": "test region", "readOn": "2026-01-02", "source": "the test itself",
          "tableTransactionsPer10k": 1, "tableStoragePerGbMonth": 0,
          "blobWriteOperationsPer10k": 2, "blobReadOperationsPer10k": 3, "blobListAndCreateContainerOperationsPer10k": 4, "blobOtherOperationsPer10k": 5,
          "blobStoragePerGbMonth": 0, "entityGroupTransactionBilling": "perEntity" }
        """;

    [Fact]
    public async Task ThePricesOptionPricesTheCountedRequestsAndSummaryJsonMdAndHtmlShowTheCost()
    {
        string dir = Directory.CreateTempSubdirectory("sb-cost").FullName;
        string spec = Path.Combine(dir, "spec.json"), prices = Path.Combine(dir, "prices.json");
        await File.WriteAllTextAsync(spec, Spec);
        await File.WriteAllTextAsync(prices, Prices);
        var stdout = new StringWriter();

        // --verbose: the console shows all of summary.md, cost table and price sources included (by default only the total).
        int exit = await CliApp.RunAsync(["run", "--spec", spec, "--connection-string", azurite.ConnectionString, "--out", dir, "--prices", prices, "--verbose"], stdout, new StringWriter(), default);

        Assert.True(exit == 0, stdout.ToString());
        var summary = JsonSerializer.Deserialize<RunSummary>(await File.ReadAllTextAsync(Path.Combine(dir, "summary.json")), JsonDefaults.Options)!;
        var cost = summary.Cost!;
        Assert.Equal(new PricesUsed(prices, "EUR", "test region", "2026-01-02", "the test itself", PriceTable.PerEntity), cost.Prices);
        // The total, by hand from the counted lines: per entity for batches, by category otherwise, deletes free.
        double expected = summary.Workloads.SelectMany(w => w.Transactions).Sum(l => (l.Entities ?? l.Requests) / 10_000.0 * l.BilledAs switch
        {
            BilledAs.TableTransaction => 1, BilledAs.BlobWrite => 2, BilledAs.BlobRead => 3, BilledAs.BlobListOrCreateContainer => 4, BilledAs.BlobOther => 5, _ => 0,
        });
        Assert.Equal(expected, cost.Total, 12);
        // 1,000 entities in batches of 100, billed per entity: at least 1,000 table transactions, and those priming sent (how many
        // rounds it had time for depends on the machine); 2 blobs of 4 blocks: 10 writes.
        long primed = summary.Workloads[0].Transactions.Where(l => l.Phase == Phases.Priming).Sum(l => l.Entities ?? l.Requests);
        Assert.True(cost.Workloads[0].BilledTransactions >= 1000 + primed, $"{cost.Workloads[0].BilledTransactions} billed, {primed} of them priming");
        Assert.Equal(10, summary.Workloads[1].Transactions.Where(l => l.Phase == Phases.Run).Sum(l => l.Requests));
        // The built-in table gives another figure for the same requests.
        Assert.NotEqual(cost.Total, CostEstimator.Estimate(summary.Workloads, PriceTableReader.BuiltIn).Total, 6);

        string md = await File.ReadAllTextAsync(Path.Combine(dir, "summary.md"));
        string html = await File.ReadAllTextAsync(Path.Combine(dir, "summary.html"));
        foreach (string report in new[] { md, stdout.ToString() })
        {
            Assert.Contains($"Cost estimate: EUR {Engine.Reports.CostReport.Money(cost.Total)} for the storage requests of this run (an estimate, not a bill), priced with {prices}", report);
            Assert.Contains("| tableInsert | run | 10 | entity group transactions | 0 | table transaction | 1,000 | 1 |", report);
            Assert.Contains("| blobUpload | setup | 1 | Create Container |  | blob list or create container operation | 1 | 4 |", report);
            Assert.Contains("- not included: data transfer", report);
        }
        Assert.Contains("<td>entity group transactions</td>", html);
        Assert.Contains("<td>Put Block List</td>", html);
        Assert.Contains("Cost estimate: EUR", html);
        Assert.Contains("per million entities", html);
    }

    [Fact]
    public async Task ABadPriceFileIsRefusedWithExitTwoNamingTheFieldValueAndRuleAndStartsNothing()
    {
        string dir = Directory.CreateTempSubdirectory("sb-cost-bad").FullName;
        string spec = Path.Combine(dir, "spec.json"), prices = Path.Combine(dir, "prices.json"), outDir = Path.Combine(dir, "out");
        await File.WriteAllTextAsync(spec, Spec);
        await File.WriteAllTextAsync(prices, Prices.Replace("\"blobWriteOperationsPer10k\": 2", "\"blobWriteOperationsPer10k\": -2"));
        var tables = await azurite.TableNamesAsync();
        var containers = await azurite.ContainerNamesAsync();
        var stderr = new StringWriter();

        int exit = await CliApp.RunAsync(["run", "--spec", spec, "--connection-string", azurite.ConnectionString, "--out", outDir, "--prices", prices], new StringWriter(), stderr, default);

        Assert.Equal(2, exit);
        Assert.Contains($"error: the price table {prices} (--prices) was rejected; nothing was started:", stderr.ToString());
        Assert.Contains("  blobWriteOperationsPer10k: -2 must be a number of 0 or more: the price of 10,000 blob write operations", stderr.ToString());
        Assert.Equal(tables, await azurite.TableNamesAsync());
        Assert.Equal(containers, await azurite.ContainerNamesAsync());
        Assert.False(Directory.Exists(outDir));
    }
}
