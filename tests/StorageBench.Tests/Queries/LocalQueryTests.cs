using StorageBench.Cli;
using StorageBench.Engine.Queries;

namespace StorageBench.Tests;

[Trait("Category", "EndToEnd")]
[Collection(ResultsAzuriteCollection.Name)]
public class LocalQueryTests(AzuriteFixture azurite)
{
    private const string Spec = """
        { "scenario": "local-query", "startDelaySeconds": 0,
          "tableInsert": { "entityCount": 300, "batchSize": 100 }, "blobUpload": { "blobCount": 1, "blobSizeBytes": 65536, "blockSizeBytes": 65536 } }
        """;

    [Fact]
    public async Task AfterTwoRunsTheRunsQueryListsBothAndTheTrendQueryReturnsThem()
    {
        string results = Path.Combine(Path.GetTempPath(), $"results-{Guid.NewGuid():N}");
        string spec = Path.Combine(Path.GetTempPath(), $"spec-{Guid.NewGuid():N}.json");
        await File.WriteAllTextAsync(spec, Spec);
        for (int i = 0; i < 2; i++)
        {
            Assert.Equal(0, await CliApp.RunAsync(["run", "--spec", spec, "--connection-string", azurite.ConnectionString, "--out", Path.Combine(results, $"run{i}")], new StringWriter(), new StringWriter(), default));
        }

        var runs = new StringWriter();
        Assert.Equal(0, await CliApp.RunAsync(["query", "runs", "--results", results], runs, new StringWriter(), default));
        Assert.Contains("2 row(s)", runs.ToString());
        Assert.Equal(2, runs.ToString().Split('\n').Count(l => l.Contains("| local-query |") && l.Contains("| Completed |")));

        var trend = LocalQueries.Named["throughput-trend"](LocalQueries.LoadEvents(results));
        Assert.Equal(4, trend.Rows.Count);   // two runs × (tableInsert, blobUpload)
        Assert.Equal(2, trend.Rows.Count(r => r[1] == "local-query / tableInsert" && double.Parse(r[2], System.Globalization.CultureInfo.InvariantCulture) > 0));

        var stderr = new StringWriter();
        Assert.Equal(2, await CliApp.RunAsync(["query", "nope", "--results", results], new StringWriter(), stderr, default));
        Assert.Contains("\"nope\" is not one of runs, throughput-trend", stderr.ToString());
    }

    [Fact]
    public void EveryLocalQueryHasTheKqlFileItMirrors()
    {
        string queries = Path.Combine(Repo.Root(), "queries");
        Assert.All(LocalQueries.Named.Keys, name => Assert.True(File.Exists(Path.Combine(queries, name + ".kql")), name));
    }
}
