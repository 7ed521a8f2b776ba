using CsCheck;
using StorageBench.Cli;
using StorageBench.Engine.Queries;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Telemetry;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>What the local listings say about their input, with no run behind them.</summary>
[Trait("Category", "Unit")]
public class LocalQueryInputTests
{
    [Theory]
    [InlineData("query", "runs")]
    [InlineData("query", "throughput-trend")]
    [InlineData("runs", null)]
    public async Task AResultsFolderThatIsNotThereFailsWithOneLineNamingIt(string command, string? name)
    {
        string missing = Path.Combine(Path.GetTempPath(), $"no-results-{Guid.NewGuid():N}");
        var stdout = new StringWriter();
        var stderr = new StringWriter();
        string[] args = name is null ? [command, "--results", missing] : [command, name, "--results", missing];

        int exit = await CliApp.RunAsync(args, stdout, stderr, default);

        Assert.Equal(CliApp.UsageError, exit);
        string line = Assert.Single(stderr.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("error: --results: ", line);
        Assert.Contains(missing, line);
        Assert.Equal("", stdout.ToString());
    }

    [Fact]
    public async Task AnEmptyResultsFolderIsAnEmptyListing()
    {
        string empty = Directory.CreateTempSubdirectory("results-").FullName;
        var stdout = new StringWriter();
        Assert.Equal(0, await CliApp.RunAsync(["query", "runs", "--results", empty], stdout, new StringWriter(), default));
        Assert.Contains("over 0 run(s)", stdout.ToString());
        Directory.Delete(empty);
    }

    [Fact]
    public void TheThroughputTrendNamesEachRowsUnit()
    {
        var at = new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        AppEvent Workload(WorkloadKind kind, double rate) => new(TelemetryEmitter.WorkloadEvent, at,
            new Dictionary<string, string> { ["scenario"] = "s", ["workload"] = kind.Name }, new Dictionary<string, double> { [kind.RateMeasurement] = rate });

        var trend = LocalQueries.Named["throughput-trend"]([.. WorkloadKind.All.Select((kind, i) => Workload(kind, i + 1))]);

        int unit = trend.Columns.ToList().IndexOf("unit");
        Assert.True(unit >= 0, "the trend has a unit column");
        Assert.All(WorkloadKind.All, kind => Assert.Equal(kind.RateUnit, trend.Rows.Single(r => r[1] == $"s / {kind.Name}")[unit]));
    }

    [Fact]
    public void TheRunsQueryHasTheColumnsOfItsKqlFileAndShowsInstancesAndWorkersAsTheRunEventCarriesThem()
    {
        string kql = File.ReadAllText(Path.Combine(Repo.Root(), "queries", "runs.kql"));
        var projected = System.Text.RegularExpressions.Regex.Matches(kql, @"^\s*(?:\| project )?(\w+)(?: =|,)", System.Text.RegularExpressions.RegexOptions.Multiline).Select(m => m.Groups[1].Value);
        Assert.Equal(projected, LocalQueries.Named["runs"]([]).Columns);
        Gen.Select(Gen.Int[0, 40], Gen.Int[0, 256]).Sample((instances, workers) =>
        {
            var run = TestData.Run("scn", DateTime.UnixEpoch, TestData.TableWorkload()) with
            {
                Environment = new RunEnvironment("Azurite", instances, "h", "m", "r", 2) { Workers = workers },
            };
            var row = LocalQueries.Named["runs"](TelemetryEvents.ForRun(run)).Rows.Single();
            var columns = LocalQueries.Named["runs"]([]).Columns.ToList();
            Assert.Equal(($"{instances}", $"{workers}"), (row[columns.IndexOf("instances")], row[columns.IndexOf("workers")]));
        });
    }
}
