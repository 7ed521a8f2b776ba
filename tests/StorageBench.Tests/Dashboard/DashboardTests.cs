using System.Diagnostics;
using System.Net;
using System.Text.Json.Nodes;
using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// The dashboard that storagebench serve shows at /, opened in real headless Chromium (dashboard-browser.js, driven by
/// puppeteer-core) against this test's own serve and Azurite: errors by field, a run's live chart gaining points, its
/// finished report, two runs compared; no console error, no request off the host. Its screenshots are docs/dashboard-*.png.
/// </summary>
[Collection(AzuriteCollection.Name)]
[Trait("Category", "EndToEnd")]
public class DashboardTests(AzuriteFixture azurite)
{
    [RequiresToolFact("chromium")]
    public async Task APersonStartsARunFromThePageWatchsItLiveReadsItsReportAndComparesTwoRuns()
    {
        await using var hub = await azurite.NewHubAsync();
        await using var server = await LocalApiServer.StartAsync(
            new RunsApi(hub, azurite.Results, new TargetCleaner([azurite.Target]), TimeProvider.System, "local-api"), port: 0, default);
        string shots = Path.Combine(Repo.Root(), "tests", "StorageBench.Tests", "TestResults", "dashboard");

        var seen = await BrowserAsync(server.Address, shots);

        Assert.Equal("StorageBench dashboard", (string?)seen["title"]);
        Assert.Empty(seen["consoleErrors"]!.AsArray());
        Assert.Single(seen["expectedErrors"]!.AsArray());   // the rejected spec's 400, which the browser logs by itself
        Assert.Empty(seen["requestsOffHost"]!.AsArray());
        // The rejected spec: its error named by field, value and rule, and nothing started.
        var error = Assert.Single(seen["errors"]!.AsArray());
        Assert.Equal("tableInsert.batchSize", (string?)error!["field"]);
        Assert.Equal("tableInsert.batchSize: 150 — exceeds the service limit of 100 entities per transaction", (string?)error["text"]);
        Assert.False((bool)seen["liveShownAfterRejection"]!);
        // Live: the chart gained points while the run went.
        Assert.True((int)seen["laterPoints"]! > (int)seen["firstPoints"]!);
        Assert.Equal("entities/s", (string?)seen["liveUnit"]);
        Assert.Matches(@"^p50 [\d.,–]+ · p90 [\d.,–]+ · p99 [\d.,–]+ · max [\d.,]+ ms \([\d,]+ requests\)$", (string?)seen["liveLatency"]);
        // Finished: the report is the run's summary.html.
        Assert.StartsWith("Completed — Completed", (string?)seen["phase"]);
        Assert.Equal($"StorageBench run {seen["runId"]} — Completed", (string?)seen["reportTitle"]);
        Assert.True((int)seen["reportCharts"]! >= 2, "the report shows its latency histogram and timeline");
        // Compared: one row per metric with its verdict, as storagebench compare has them.
        Assert.Equal("", (string?)seen["compareMessage"]);
        Assert.StartsWith("Verdict: ", (string?)seen["verdict"]);
        var rows = seen["compareRows"]!.AsArray();
        Assert.NotEmpty(rows);
        Assert.All(rows, r => Assert.Equal(9, r!.AsArray().Count));
        Assert.Contains(rows, r => (string?)r![1] == "throughput");
    }

    [Fact]
    public async Task ThePageTheReportAndTheComparisonAreServedWithTheirOwnContentTypesAndErrorsKeepTheOneShape()
    {
        await using var hub = await azurite.NewHubAsync();
        await using var server = await LocalApiServer.StartAsync(
            new RunsApi(hub, azurite.Results, new TargetCleaner([azurite.Target]), TimeProvider.System, "local-api"), port: 0, default);
        using var http = new HttpClient { BaseAddress = server.Address };

        var page = await http.GetAsync("/");
        Assert.Equal("text/html", page.Content.Headers.ContentType!.MediaType);
        string html = await page.Content.ReadAsStringAsync();
        Assert.Contains("<title>StorageBench dashboard</title>", html);
        Assert.DoesNotContain("http://", html);
        Assert.DoesNotContain("https://", html);

        var unknown = await http.GetAsync("api/runs/no-such-run/report");
        Assert.Equal(HttpStatusCode.NotFound, unknown.StatusCode);
        Assert.Equal("application/json", unknown.Content.Headers.ContentType!.MediaType);

        var bad = JsonNode.Parse(await (await http.GetAsync("api/compare?baseline=Not_An_Id")).Content.ReadAsStringAsync())!;
        Assert.Equal(400, (int)bad["status"]!);
        Assert.Equal(["baseline", "candidate"], bad["errors"]!.AsArray().Select(e => (string?)e!["field"]));
        var missing = JsonNode.Parse(await (await http.GetAsync("api/compare?baseline=no-such-run&candidate=no-such-run-either")).Content.ReadAsStringAsync())!;
        Assert.Equal(404, (int)missing["status"]!);
        Assert.Equal("baseline", (string?)missing["errors"]![0]!["field"]);
    }

    /// <summary>Runs dashboard-browser.js; what it saw, as JSON. Bounded: a hung browser fails the test, it does not hold the suite.</summary>
    private static async Task<JsonObject> BrowserAsync(Uri address, string shots)
    {
        var psi = new ProcessStartInfo("node") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false, WorkingDirectory = Repo.Root() };
        foreach (string arg in new[] { Path.Combine("tests", "StorageBench.Tests", "Dashboard", "dashboard-browser.js"), address.ToString(), shots })
        {
            psi.ArgumentList.Add(arg);
        }
        using var process = Process.Start(psi)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(8));
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new Xunit.Sdk.XunitException($"dashboard-browser.js did not finish within 8 minutes: {await stderr}");
        }
        Assert.True(process.ExitCode == 0, $"dashboard-browser.js exited {process.ExitCode}: {await stderr}");
        return JsonNode.Parse((await stdout).Trim().Split('\n')[^1])!.AsObject();
    }
}
