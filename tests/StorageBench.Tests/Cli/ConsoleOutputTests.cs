using System.Text.Json;
using StorageBench.Cli;
using StorageBench.Engine;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>
/// What `storagebench run` prints, against Azurite, with both workloads (as the default scenario): by default one short
/// table of the headline figures, notes and one cost line, at most 25 lines after the progress, none of the summary wider
/// than 120 columns; --verbose all of summary.md (its wide tables); --quiet one status line; --json summary.json and
/// nothing else. The files and the exit code are the same in every mode.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(ResultsAzuriteCollection.Name)]
public class ConsoleOutputTests(AzuriteFixture azurite)
{
    private const string Spec = """
        { "scenario": "console-output", "startDelaySeconds": 1,
          "tableInsert": { "entityCount": 400, "entitySizeBytes": 256, "batchSize": 100, "slices": 2 },
          "blobUpload": { "blobCount": 2, "blobSizeBytes": 200000, "blockSizeBytes": 50000, "slices": 1 } }
        """;

    private const string CostTableHeader = "| workload | phase | requests | kind |";

    private async Task<(int Exit, string Stdout, string Dir)> RunAsync(params string[] output)
    {
        string dir = Directory.CreateTempSubdirectory("sb-console").FullName;
        string spec = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(spec, Spec);
        var stdout = new StringWriter();
        int exit = await CliApp.RunAsync(["run", "--spec", spec, "--connection-string", azurite.ConnectionString, "--out", Path.Combine(dir, "out"), .. output],
            stdout, new StringWriter(), default);
        return (exit, stdout.ToString(), Path.Combine(dir, "out"));
    }

    [Fact]
    public async Task ByDefaultARunPrintsOneShortTableNotesAndOneCostLineInAtMost25LinesOf120ColumnsAfterTheProgress()
    {
        var (exit, stdout, dir) = await RunAsync();

        Assert.True(exit == 0, stdout);
        var lines = stdout.ReplaceLineEndings("\n").TrimEnd('\n').Split('\n');
        // Progress lines (plain, as stdout is not a terminal here) are the indented ones before the summary.
        int lastProgress = Array.FindLastIndex(lines, l => l.StartsWith("  ", StringComparison.Ordinal));
        Assert.True(lastProgress > 0, stdout);
        var after = lines[(lastProgress + 1)..];
        Assert.True(after.Length <= 25, $"{after.Length} lines after the progress:\n{string.Join('\n', after)}");
        Assert.Contains(after, l => l.StartsWith("# StorageBench run ", StringComparison.Ordinal) && l.EndsWith("— Completed", StringComparison.Ordinal));
        // The output fits a 120-column terminal (it printed lines up to 672 wide): the wide tables are summary.md's and
        // --verbose's. So do the run line and the "Wrote" line (the folder once, then the file names).
        Assert.All(lines, l => Assert.True(l.Length <= ConsoleReport.Columns, $"{l.Length} columns: {l}"));
        Assert.Matches(@"^Wrote summary\.json, summary\.md, summary\.html to .+/$", Assert.Single(after, l => l.StartsWith("Wrote ", StringComparison.Ordinal)));
        Assert.Contains("| workload | ops | ok | failed | throttled | timed out | throughput | p50 ms | p99 ms | verified |", after);
        Assert.Contains(after, l => l.StartsWith("| tableInsert | ", StringComparison.Ordinal) && l.EndsWith(" | yes |", StringComparison.Ordinal));
        Assert.Contains(after, l => l.StartsWith("| blobUpload | ", StringComparison.Ordinal));
        Assert.Contains(after, l => l.StartsWith("p50, p99: latency of successful requests", StringComparison.Ordinal));
        Assert.DoesNotContain("all-slices window", stdout);
        Assert.DoesNotContain("| p99.9 |", stdout);
        // Each workload's note, wrapped at 120 columns: what it measured and how it was verified.
        Assert.Contains(after, l => l.StartsWith("- tableInsert: ", StringComparison.Ordinal));
        Assert.Contains("Verified: entities in table ", string.Join(' ', after));
        var cost = Assert.Single(after, l => l.StartsWith("Cost estimate: ", StringComparison.Ordinal));
        Assert.Matches(@"^Cost estimate: USD [\d.,]+ for the storage requests of this run \(not a bill; table and prices: summary\.md, --verbose\)\.$", cost);
        Assert.DoesNotContain(CostTableHeader, stdout);
        Assert.DoesNotContain("- not included:", stdout);
        Assert.StartsWith("Wrote ", after[^2]);
        // The file keeps everything the console leaves out.
        string md = await File.ReadAllTextAsync(Path.Combine(dir, "summary.md"));
        Assert.Contains(CostTableHeader, md);
        Assert.Contains("all-slices window", md);
        Assert.Contains("| p99.9 |", md);
        Assert.Contains("- not included:", md);
    }

    [Fact]
    public async Task VerbosePrintsAllOfSummaryMd()
    {
        var (exit, stdout, dir) = await RunAsync("--verbose");

        Assert.True(exit == 0, stdout);
        Assert.Contains(CostTableHeader, stdout);
        Assert.Contains("- not included:", stdout);
        Assert.Contains((await File.ReadAllTextAsync(Path.Combine(dir, "summary.md"))).ReplaceLineEndings("\n"), stdout.ReplaceLineEndings("\n"));
    }

    [Fact]
    public async Task QuietPrintsOnlyTheFinalStatusLine()
    {
        var (exit, stdout, dir) = await RunAsync("-q");

        Assert.True(exit == 0, stdout);
        var summary = JsonSerializer.Deserialize<RunSummary>(await File.ReadAllTextAsync(Path.Combine(dir, "summary.json")), JsonDefaults.Options)!;
        Assert.Equal($"Completed: run {summary.RunId}, verified; {Path.Combine(dir, "summary.md")}{Environment.NewLine}", stdout);
    }

    [Fact]
    public async Task JsonWritesSummaryJsonToStdoutAndNothingElse()
    {
        var (exit, stdout, dir) = await RunAsync("--json");

        Assert.True(exit == 0, stdout);
        var printed = JsonSerializer.Deserialize<RunSummary>(stdout, JsonDefaults.Options)!;
        Assert.Equal(RunStatus.Completed, printed.Status);
        Assert.Equal((await File.ReadAllTextAsync(Path.Combine(dir, "summary.json"))).Trim(), stdout.Trim());
    }
}
