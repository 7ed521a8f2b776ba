using StorageBench.Cli;
using StorageBench.Engine.ResultsStore;

namespace StorageBench.Tests;

[Trait("Category", "Azurite")]
[Collection(ResultsAzuriteCollection.Name)]
public class ResultsQueryTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task Int64ThresholdsAbove2To31WorkAgainstTheTableService()
    {
        string scenario = "int64-" + Guid.NewGuid().ToString("N")[..8];
        var store = new ResultsTableStore(azurite.Target);
        var t0 = new DateTime(2026, 11, 1, 2, 0, 0, DateTimeKind.Utc);
        await store.SaveAsync(TestData.Run(scenario, t0, TestData.TableWorkload(entities: 5_000_000_000)), default);
        await store.SaveAsync(TestData.Run(scenario, t0.AddDays(1), TestData.TableWorkload(entities: 3_000_000_000)), default);
        await store.SaveAsync(TestData.Run(scenario, t0.AddDays(2), TestData.TableWorkload(entities: 100)), default);

        var above2To32 = new RunFilter(scenario, Thresholds: [RunFilter.ParseThreshold("TableEntities>=4294967296")]);
        Assert.Contains("TableEntities ge 4294967296L", above2To32.ToODataFilter());
        var rows = await store.QueryRunsAsync(above2To32, 10, default);
        Assert.Equal([5_000_000_000L], rows.Select(r => r.GetInt64("TableEntities")!.Value));

        var above2To31 = await store.QueryRunsAsync(new RunFilter(scenario, Thresholds: [RunFilter.ParseThreshold("TableEntities>2147483648")]), 10, default);
        Assert.Equal([3_000_000_000L, 5_000_000_000L], above2To31.Select(r => r.GetInt64("TableEntities")!.Value).Order());

        // Newest first, and a time range on the typed StartedUtc column.
        var all = await store.QueryRunsAsync(new RunFilter(scenario), 10, default);
        Assert.Equal([100L, 3_000_000_000L, 5_000_000_000L], all.Select(r => r.GetInt64("TableEntities")!.Value));
        var range = await store.QueryRunsAsync(new RunFilter(scenario, t0.AddHours(12), t0.AddDays(2)), 10, default);
        Assert.Equal([3_000_000_000L], range.Select(r => r.GetInt64("TableEntities")!.Value));

        // Doubles compare as doubles.
        var fast = await store.QueryRunsAsync(new RunFilter(scenario, Thresholds: [RunFilter.ParseThreshold("TableLatencyP99Ms<=50.5")]), 10, default);
        Assert.Equal(3, fast.Count);
    }

    [Fact]
    public async Task MaxGivesTheNewestRunsWhateverTheirScenarioIsCalled()
    {
        // Far in the future, so --since leaves only these rows of the shared table.
        string suffix = Guid.NewGuid().ToString("N")[..8];
        var since = new DateTime(2190, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        var store = new ResultsTableStore(azurite.Target);
        var older = TestData.Run("aa-" + suffix, since.AddDays(1), TestData.TableWorkload());
        var newer = TestData.Run("zz-" + suffix, since.AddDays(2), TestData.TableWorkload());
        var newest = TestData.Run("mm-" + suffix, since.AddDays(3), TestData.TableWorkload());
        foreach (var run in new[] { older, newer, newest })
        {
            await store.SaveAsync(run, default);
        }
        var stdout = new StringWriter();

        int exit = await CliApp.RunAsync(["runs", "--connection-string", azurite.ConnectionString, "--since", "2190-01-01", "--max", "2"], stdout, new StringWriter(), default);

        Assert.Equal(0, exit);
        var runIds = stdout.ToString().Split('\n').Where(l => l.StartsWith("| ", StringComparison.Ordinal) && !l.StartsWith("| scenario", StringComparison.Ordinal))
            .Select(l => l.Split('|')[2].Trim());
        Assert.Equal([newest.RunId, newer.RunId], runIds);
    }

    [Fact]
    public async Task ARunWithNoSampleHasNoPercentileForAFilterToMatch()
    {
        string scenario = "empty-" + Guid.NewGuid().ToString("N")[..8];
        var store = new ResultsTableStore(azurite.Target);
        var t0 = new DateTime(2026, 11, 2, 2, 0, 0, DateTimeKind.Utc);
        await store.SaveAsync(TestData.Run(scenario, t0, NoSampleFiguresTests.NothingSent()) with { Status = "Canceled" }, default);
        await store.SaveAsync(TestData.Run(scenario, t0.AddDays(1), TestData.TableWorkload(p99: 20)), default);

        var fast = await store.QueryRunsAsync(new RunFilter(scenario, Thresholds: [RunFilter.ParseThreshold("TableLatencyP99Ms<30")]), 10, default);
        Assert.Equal([20.0], fast.Select(r => r.GetDouble("TableLatencyP99Ms")!.Value));
        var empty = (await store.QueryRunsAsync(new RunFilter(scenario), 10, default)).Single(r => r.GetString("Status") == "Canceled");
        Assert.False(empty.ContainsKey("TableLatencyP99Ms") || empty.ContainsKey("TableServiceTimeP99Ms") || empty.ContainsKey("TableScheduleLagP99Ms"));
        Assert.Equal(0L, empty.GetInt64("TableLateRequests"));
    }

    [Fact]
    public async Task TheRunsCommandListsAndFiltersAndRejectsAnUnknownColumnByName()
    {
        string scenario = "cli-" + Guid.NewGuid().ToString("N")[..8];
        var store = new ResultsTableStore(azurite.Target);
        await store.SaveAsync(TestData.Run(scenario, DateTime.UtcNow, TestData.TableWorkload(rate: 1234.5)), default);
        var stdout = new StringWriter();

        Assert.Equal(0, await CliApp.RunAsync(["runs", "--connection-string", azurite.ConnectionString, "--scenario", scenario, "--where", "TableEntitiesPerSecond>1000"], stdout, new StringWriter(), default));
        Assert.Contains("| 1234.5 |", stdout.ToString());
        Assert.Contains("1 run row(s)", stdout.ToString());

        var stderr = new StringWriter();
        Assert.Equal(2, await CliApp.RunAsync(["runs", "--connection-string", azurite.ConnectionString, "--where", "Bogus>1"], new StringWriter(), stderr, default));
        Assert.Contains("\"Bogus\" is not a numeric results column", stderr.ToString());
    }
}
