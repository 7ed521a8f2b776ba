using StorageBench.Cli;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.Statistics;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// `storagebench run --nightly` (issue 27, item 3): the nightly regression check outside Azure, end to end against Azurite.
/// The runs are open loop at a rate a busy machine holds (200 entities/s, 32 in flight), so an unchanged run is the same
/// throughput and the only thing that moves it is the proxy that makes the service slower: what the product controls.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(ResultsAzuriteCollection.Name)]
public class NightlyCliTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    /// <summary>7 s measured after 0.5 s of warm-up: the 5 whole seconds with the slice active the rule needs (ChangeRule.MinDurationSeconds).</summary>
    private static string Spec(string scenario) => $$"""
        { "scenario": "{{scenario}}", "startDelaySeconds": 1,
          "tableInsert": { "entitySizeBytes": 256, "batchSize": 10, "partitionCount": 4, "concurrency": 32, "slices": 1,
                           "durationSeconds": 7.5, "warmupSeconds": 0.5, "targetOperationsPerSecond": 20 } }
        """;

    private async Task<(int Exit, string Output, string Errors)> NightlyAsync(string specFile, string connectionString)
    {
        var stdout = new StringWriter();
        var stderr = new StringWriter();
        string outDir = Path.Combine(Path.GetTempPath(), "sb-nightly-" + Guid.NewGuid().ToString("N")[..8]);
        // The control plane (results, so the baseline) in the fixture's account, where the runs below (the CLI, called in this process) store theirs.
        int exit = await CliApp.RunAsync(["run", "--nightly", "--spec", specFile, "--connection-string", connectionString, "--hub-connection-string", azurite.ConnectionString,
            "--out", outDir], stdout, stderr, default);
        output.WriteLine($"exit {exit}\n{stdout}\n{stderr}");
        return (exit, stdout.ToString(), stderr.ToString());
    }

    private async Task<string?> StoredVerdictAsync(string scenario) =>
        (await azurite.Results.ListRunsAsync(scenario, 1, default)).Single().GetString("RegressionVerdict");

    [Fact]
    public async Task ANightlyRunIsJudgedAgainstItsTrailingRunsRegressedThroughASlowServiceOkUnchanged()
    {
        string scenario = "nightly-cli-" + Guid.NewGuid().ToString("N")[..6];
        string specFile = Path.Combine(Path.GetTempPath(), scenario + ".json");
        await File.WriteAllTextAsync(specFile, Spec(scenario));

        // No earlier runs: it cannot judge, says so with its own exit code and how many more runs it needs.
        var first = await NightlyAsync(specFile, azurite.ConnectionString);
        Assert.Equal(CliApp.CouldNotJudge, first.Exit);
        Assert.Contains("nightly: not judged: 0 earlier completed run(s) of this scenario; at least 5 are needed: 5 more run(s)", first.Errors);
        Assert.Equal(VerdictWords.NotJudged, await StoredVerdictAsync(scenario));

        // Four more completed runs: five earlier runs in all.
        for (int i = 0; i < 4; i++)
        {
            Assert.Equal(RunStatus.Completed, (await Pipeline.RunAsync(azurite, null, Spec(scenario))).Status);
        }

        // Unchanged: ok, exit 0, stored on the run row.
        var unchanged = await NightlyAsync(specFile, azurite.ConnectionString);
        Assert.Equal(0, unchanged.Exit);
        Assert.Contains("nightly: within noise against 5 earlier run(s)", unchanged.Output);
        Assert.Equal(VerdictWords.WithinNoise, await StoredVerdictAsync(scenario));

        // A service that takes at most 5 batches a second (a quarter of the spec's 20): regressed, the gate's exit code.
        static bool Batches(Microsoft.AspNetCore.Http.HttpRequest r) => r.Method == "POST" && r.Path.Value!.EndsWith("$batch", StringComparison.Ordinal);
        var (proxy, _) = await FaultProxy.CappedInFrontOfAsync(azurite.ConnectionString, "TableEndpoint", Batches, requestsPerSecond: 5, hold: TimeSpan.FromMilliseconds(50));
        await using var __ = proxy;
        string direct = azurite.ConnectionString.Split(';').Single(p => p.StartsWith("TableEndpoint=", StringComparison.Ordinal))["TableEndpoint=".Length..];
        string slow = azurite.ConnectionString.Replace(direct, $"{proxy.Address.ToString().TrimEnd('/')}/devstoreaccount1", StringComparison.Ordinal);
        var regressed = await NightlyAsync(specFile, slow);
        Assert.Equal(1, regressed.Exit);
        Assert.Contains("nightly: regressed against 6 earlier run(s): TableEntitiesPerSecond", regressed.Errors);
        Assert.Equal(VerdictWords.Regressed, await StoredVerdictAsync(scenario));
        Assert.True(proxy.Seen > 0);
    }
}
