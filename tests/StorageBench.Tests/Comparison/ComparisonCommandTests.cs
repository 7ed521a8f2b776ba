using System.Globalization;
using StorageBench.Cli;
using System.Text.Json;
using StorageBench.Engine;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>
/// storagebench compare against a real Azurite: runs read by id from the results table or from
/// summary.json files, sweeps step by step, old rows, and bad arguments. No verdict here depends on
/// timing; <see cref="ComparisonNoiseTests"/> has those.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(ResultsAzuriteCollection.Name)]
public class ComparisonCommandTests(AzuriteFixture azurite)
{
    internal static async Task<(int Exit, string Output, string Errors)> CompareAsync(params string[] args)
    {
        var stdout = new StringWriter();
        var stderr = new StringWriter();
        int exit = await CliApp.RunAsync(["compare", .. args], stdout, stderr, default);
        return (exit, stdout.ToString(), stderr.ToString());
    }

    /// <summary>The metric rows of the console table: they start with the workload and a space (and say nothing of where the runs were read).</summary>
    private static string[] MetricRows(string output) =>
        [.. output.Split('\n').Where(l => (l.StartsWith("tableInsert", StringComparison.Ordinal) || l.StartsWith("blobUpload", StringComparison.Ordinal))
            && !System.Text.RegularExpressions.Regex.IsMatch(l, @"^\S+( \S+=\S+)?: "))];   // not the notes ("tableInsert: …")

    /// <summary>A directory holding the summary's summary.json, as a run's out/&lt;runId&gt; does.</summary>
    private static async Task<string> SummaryDirectoryAsync(RunSummary summary)
    {
        string dir = Path.Combine(Path.GetTempPath(), "sb-compare-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        await File.WriteAllTextAsync(Path.Combine(dir, "summary.json"), JsonSerializer.Serialize(summary, JsonDefaults.Options));
        return dir;
    }

    [Fact]
    public async Task TwoStoredRunsByIdAndTheirSummaryFilesCompareToTheSameFigures()
    {
        const string spec = """
            { "scenario": "compare-sources", "startDelaySeconds": 0.5,
              "tableInsert": { "entitySizeBytes": 256, "batchSize": 50, "concurrency": 2, "slices": 2, "durationSeconds": 4 },
              "blobUpload": { "blobSizeBytes": 262144, "blockSizeBytes": 65536, "parallelBlocks": 2, "durationSeconds": 4 } }
            """;
        await using var host = await azurite.NewHubAsync();
        var a = await Pipeline.RunAsync(host, spec, azurite.Results);
        var b = await Pipeline.RunAsync(host, spec, azurite.Results);
        Assert.All(a.Workloads.Concat(b.Workloads), w => Assert.NotNull(w.PerSecondSpread));

        var byId = await CompareAsync(a.RunId, b.RunId, "--connection-string", azurite.ConnectionString);
        string fileA = Path.Combine(await SummaryDirectoryAsync(a), "summary.json");
        string fileB = Path.Combine(await SummaryDirectoryAsync(b), "summary.json");
        string outFile = Path.ChangeExtension(fileB, ".compare.md");
        var byFile = await CompareAsync(fileA, fileB, "--out", outFile);

        Assert.True(byId.Exit == 0, byId.Output + byId.Errors);
        Assert.True(byFile.Exit == 0, byFile.Output + byFile.Errors);
        Assert.Contains($"baseline   {a.RunId}  (results table StorageBenchRuns; scenario compare-sources; Completed", byId.Output);
        Assert.Contains($"candidate  {b.RunId}  ({fileB}; scenario compare-sources; Completed", byFile.Output);
        // The results row holds what the summary holds: throughput, peak, percentiles (p95 from the stored
        // histogram), counts, CPU per unit and the per-second spread.
        var rows = MetricRows(byId.Output);
        Assert.Equal(18, rows.Length);   // 9 metrics × 2 workloads
        Assert.Equal(rows, MetricRows(byFile.Output));
        string p95 = a.Workloads[0].LatencyMs.P95!.Value.ToString("#,0.0##", CultureInfo.InvariantCulture);
        Assert.Contains(rows, r => r.StartsWith("tableInsert  latency p95", StringComparison.Ordinal) && r.Contains(p95));
        Assert.DoesNotContain("n/a", string.Join('\n', rows));
        Assert.Contains("Noise method: per-second spread", byId.Output);

        string markdown = await File.ReadAllTextAsync(outFile);
        Assert.Contains($"# StorageBench comparison: {a.RunId} → {b.RunId}", markdown);
        Assert.Contains("| throughput | MB/s |", markdown);
        Assert.Contains("Wrote " + outFile, byFile.Output);
    }

    [Fact]
    public async Task ASweepIsComparedStepByStepOnMatchingValues()
    {
        await using var host = await azurite.NewHubAsync();
        const string sweep = """
            { "scenario": "compare-sweep", "startDelaySeconds": 0,
              "tableInsert": { "entityCount": 300, "entitySizeBytes": 128, "concurrency": 2 },
              "sweep": { "parameter": "tableInsert.batchSize", "values": [VALUES] } }
            """;
        var baseline = await Pipeline.RunAsync(host, sweep.Replace("VALUES", "1, 10, 100"));
        var candidate = await Pipeline.RunAsync(host, sweep.Replace("VALUES", "10, 100"));

        var (exit, output, errors) = await CompareAsync(baseline.RunId, candidate.RunId, "--connection-string", azurite.ConnectionString);

        Assert.True(exit == 0, output + errors);
        var throughputRows = MetricRows(output).Where(r => r.Contains("  throughput  ", StringComparison.Ordinal)).ToList();
        Assert.Equal(2, throughputRows.Count);
        foreach (var (row, value) in throughputRows.Zip(new[] { 10.0, 100.0 }))
        {
            // Each row pairs the two runs' figures of the same step.
            double Rate(RunSummary s) => s.Workloads.Single(w => w.StepValue == value).Throughput.EntitiesPerSecond!.Value;
            Assert.StartsWith($"tableInsert batchSize={value}", row);
            Assert.Contains(Rate(baseline).ToString("#,0.0", CultureInfo.InvariantCulture), row);
            Assert.Contains(Rate(candidate).ToString("#,0.0", CultureInfo.InvariantCulture), row);
        }
        Assert.Contains("only in the baseline, not compared: tableInsert batchSize=1", output);
    }

    [Fact]
    public async Task ARowStoredBeforeTheSpreadWasRecordedIsNotJudgedAndSaysWhy()
    {
        // Rows as an older version wrote them: no per-second spread or CPU columns, an empty histogram.
        // Without a spread nobody knows the runs' noise: a 30% drop is shown, and not claimed.
        string scenario = "compare-old-" + Guid.NewGuid().ToString("N")[..8];
        var a = TestData.Run(scenario, DateTime.UtcNow.AddDays(-7), TestData.TableWorkload(rate: 1000));
        var b = TestData.Run(scenario, DateTime.UtcNow, TestData.TableWorkload(rate: 700));
        await azurite.Results.SaveAsync(a, default);
        await azurite.Results.SaveAsync(b, default);

        var (exit, output, errors) = await CompareAsync(a.RunId, b.RunId, "--connection-string", azurite.ConnectionString, "--fail-if-slower", "20");

        // The gate could not judge: it does not pass (exit 3) and says what to change.
        Assert.Equal(CliApp.CouldNotJudge, exit);
        Assert.StartsWith("--fail-if-slower 20: could not judge tableInsert throughput: the baseline has no per-second spread", errors);
        Assert.Contains("baseline: no per-second spread", output);
        Assert.Matches(@"tableInsert\s+throughput\s+entities/s\s+1,000\.0\s+700\.0\s+-300\.0\s+-30\.0%\s+not judged", output);
        Assert.Contains("tableInsert: throughput, peak second, latency p50, latency p95, latency p99, client CPU not judged: the baseline has no per-second spread", output);
        Assert.Contains("verdict: not judged: the baseline has no per-second spread", output);
        Assert.Matches(@"tableInsert\s+latency p95\s+ms\s+n/a\s+n/a", output);
        Assert.DoesNotContain("--fail-if-slower 20: no throughput is lower", output);
    }

    [Theory]
    [InlineData("--fail-if-slower", "abc", "error: --fail-if-slower: \"abc\" must be a percentage above 0 and below 100")]
    [InlineData("--fail-if-slower", "0", "error: --fail-if-slower: \"0\" must be a percentage above 0 and below 100")]
    [InlineData("--fail-if-slower", "100", "error: --fail-if-slower: \"100\" must be a percentage above 0 and below 100")]
    [InlineData("--fail-if-slower", "-5", "error: --fail-if-slower: \"-5\" must be a percentage above 0 and below 100")]
    [InlineData("--fail-if-slower", "NaN", "error: --fail-if-slower: \"NaN\" must be a percentage above 0 and below 100")]
    public async Task ABadPercentageExitsTwoNamingTheOptionTheValueAndTheRule(string option, string value, string message)
    {
        var (exit, output, errors) = await CompareAsync("20260101-000000-aaaaaaaa", "20260101-000000-bbbbbbbb", "--connection-string", azurite.ConnectionString, option, value);
        Assert.Equal(2, exit);
        Assert.StartsWith(message, errors);
        Assert.Empty(output);
    }

    [Fact]
    public async Task AnUnknownRunAnUnreadableFileOrAMissingAccountExitsTwoNamingTheArgument()
    {
        var run = TestData.Run("compare-bad", DateTime.UtcNow, TestData.TableWorkload());
        await azurite.Results.SaveAsync(run, default);
        string stored = run.RunId;
        string broken = Path.Combine(Path.GetTempPath(), $"broken-{Guid.NewGuid():N}.json");
        await File.WriteAllTextAsync(broken, """{ "runId": "x", "status": """);
        string cs = azurite.ConnectionString;

        var unknown = await CompareAsync(stored, "20200101-000000-deadbeef", "--connection-string", cs);
        Assert.Equal(2, unknown.Exit);
        Assert.StartsWith("error: candidate: \"20200101-000000-deadbeef\" is no run in the results table (StorageBenchRuns) and no summary.json file", unknown.Errors);

        var unreadable = await CompareAsync(broken, stored, "--connection-string", cs);
        Assert.Equal(2, unreadable.Exit);
        Assert.StartsWith($"error: baseline: \"{broken}\" cannot be read as a summary.json:", unreadable.Errors);

        var missing = await CompareAsync("out/nope/summary.json", stored, "--connection-string", cs);
        Assert.Equal(2, missing.Exit);
        Assert.StartsWith("error: baseline: \"out/nope/summary.json\" is neither a summary.json file that exists nor a run id", missing.Errors);

        // Without an account a run id is looked for in the hub store, where local runs are; this one is in another account.
        var noAccount = await CompareAsync(stored, stored);
        Assert.Equal(2, noAccount.Exit);
        Assert.StartsWith($"error: baseline: \"{stored}\" is no run in the results table (StorageBenchRuns in the hub store in {TestHubStore.Folder}) and no summary.json file", noAccount.Errors);

        var oneRun = await CompareAsync(stored);
        Assert.Equal(2, oneRun.Exit);
        Assert.StartsWith("error: compare: CANDIDATE is missing (compare BASELINE CANDIDATE)", oneRun.Errors);
    }

    [Fact]
    public async Task TheRunIdsOfLocalRunsAreReadFromTheHubStoreWithoutAnAccount()
    {
        // What `storagebench run` does without an account: its results go to the hub store's results table.
        var results = await TestHubStore.ResultsAsync();
        var baseline = TestData.Run("compare-local", DateTime.UtcNow, TestData.TableWorkload(rate: 1000));
        var candidate = TestData.Run("compare-local", DateTime.UtcNow.AddSeconds(1), TestData.TableWorkload(rate: 1100));
        await results.SaveAsync(baseline, default);
        await results.SaveAsync(candidate, default);

        var (exit, output, errors) = await CompareAsync(baseline.RunId, candidate.RunId);

        Assert.True(exit == 0, output + errors);
        Assert.Contains(MetricRows(output), row => row.Contains("1,000.0", StringComparison.Ordinal) && row.Contains("1,100.0", StringComparison.Ordinal));
    }

    [Fact]
    public async Task RunsWithNoWorkloadInCommonAreABadArgumentNotAnEmptyComparison()
    {
        var table = TestData.Run("compare-disjoint", DateTime.UtcNow, TestData.TableWorkload());
        var sweep = TestData.Run("compare-disjoint", DateTime.UtcNow, TestData.TableWorkload() with { StepParameter = "tableInsert.batchSize", StepValue = 10 });
        string a = Path.Combine(await SummaryDirectoryAsync(table), "summary.json");
        string b = await SummaryDirectoryAsync(sweep);   // a run's directory stands for its summary.json

        var (exit, _, errors) = await CompareAsync(a, b);

        Assert.Equal(2, exit);
        Assert.StartsWith($"error: candidate: \"{b}\" has no workload or step in common with the baseline", errors);
        Assert.Contains("(baseline: tableInsert; candidate: tableInsert batchSize=10)", errors);
    }
}
