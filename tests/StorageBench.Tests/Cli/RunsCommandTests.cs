using System.Text.Json;
using StorageBench.Cli;
using StorageBench.Engine;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>
/// `storagebench runs` without an account: it lists the local runs (the summary.json files storagebench run wrote),
/// newest first, where it used to answer only "--connection-string: required".
/// </summary>
[Trait("Category", "Unit")]
public class RunsCommandTests
{
    [Fact]
    public async Task WithoutAnAccountRunsListsTheLocalRunsNewestFirstFiltered()
    {
        Assert.Null(Environment.GetEnvironmentVariable("STORAGEBENCH_TARGET_CONNECTION_STRING"));
        string dir = Directory.CreateTempSubdirectory("sb-runs").FullName;
        var older = TestData.Run("quick", new DateTime(2026, 11, 22, 10, 0, 0, DateTimeKind.Utc), TestData.TableWorkload(rate: 1234.5));
        var newer = TestData.Run("quick", new DateTime(2026, 11, 23, 10, 0, 0, DateTimeKind.Utc), TestData.TableWorkload()) with { Status = RunStatus.Canceled };
        var other = TestData.Run("other", new DateTime(2026, 11, 24, 10, 0, 0, DateTimeKind.Utc), TestData.TableWorkload());
        foreach (var run in new[] { older, newer, other })
        {
            Directory.CreateDirectory(Path.Combine(dir, run.RunId));
            await File.WriteAllTextAsync(Path.Combine(dir, run.RunId, "summary.json"), JsonSerializer.Serialize(run, JsonDefaults.Options));
        }
        var stdout = new StringWriter();
        var stderr = new StringWriter();

        int exit = await CliApp.RunAsync(["runs", "--results", dir, "--scenario", "quick"], stdout, stderr, default);

        Assert.True(exit == 0, stderr.ToString());
        var lines = stdout.ToString().ReplaceLineEndings("\n").TrimEnd('\n').Split('\n');
        Assert.StartsWith($"Local runs in {dir} ", lines[0]);
        Assert.Equal("| scenario | run | started (UTC) | status | workload | throughput | p99 ms | verified |", lines[1]);
        Assert.Equal($"| quick | {newer.RunId} | 2026-11-23 10:00:00Z | Canceled | tableInsert | 1,000.0 entities/s | 50.0† | yes |", lines[3]);
        Assert.Equal($"| quick | {older.RunId} | 2026-11-22 10:00:00Z | Completed | tableInsert | 1,234.5 entities/s | 50.0† | yes |", lines[4]);
        // 100 samples cannot support a p99: marked, as the summary marks it.
        Assert.Equal("2 run(s); † too few samples support it (p99 needs 1,000)", lines[^1]);

        var newest = new StringWriter();
        Assert.Equal(0, await CliApp.RunAsync(["runs", "--results", dir, "--max", "2"], newest, stderr, default));
        Assert.Equal([other.RunId, newer.RunId], newest.ToString().Split('\n').Where(l => l.StartsWith("| ", StringComparison.Ordinal) && !l.StartsWith("| scenario", StringComparison.Ordinal))
            .Select(l => l.Split('|')[2].Trim()));
    }

    [Fact]
    public async Task WithoutAnAccountWhereSaysItNeedsTheResultsTable()
    {
        var stderr = new StringWriter();

        int exit = await CliApp.RunAsync(["runs", "--results", Path.GetTempPath(), "--where", "TableEntities>=1"], new StringWriter(), stderr, default);

        Assert.Equal(CliApp.UsageError, exit);
        Assert.Contains("--where: filters on the results table's columns", stderr.ToString());
    }
}
