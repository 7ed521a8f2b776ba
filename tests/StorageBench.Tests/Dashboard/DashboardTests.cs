using System.Net;
using System.Text.Json.Nodes;
using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// The dashboard that storagebench serve shows at /, opened in real headless Chromium (dashboard-browser.js, driven by
/// puppeteer-core) against this test's own serve and Azurite: errors by field, a run's live chart gaining points, its
/// finished report, two runs compared, a run canceled with the page's button; one status word in the header (the run's,
/// as the API has it), no empty frame and no report cut by its frame; no console error, no request off the host. Its
/// screenshots are docs/dashboard-*.png.
/// </summary>
[Collection(AzuriteCollection.Name)]
[Trait("Category", "EndToEnd")]
public class DashboardTests(AzuriteFixture azurite)
{
    [RequiresToolFact("chromium")]
    public async Task APersonStartsARunFromThePageWatchsItLiveReadsItsReportComparesTwoRunsAndCancelsAThird()
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
        // Nothing watched or compared yet: no frame takes room (the two 900-px compare frames did: display:flex beat hidden).
        Assert.Empty(seen["framesShownBeforeUse"]!.AsArray());
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
        // One status word, the run's: not "Completed — Completed".
        Assert.Equal("Completed", (string?)seen["status"]);
        Assert.Equal(["Completed"], seen["headerStatusWords"]!.AsArray().Select(w => (string?)w));
        Assert.Equal(" — ended", (string?)seen["phase"]);
        AssertHoldsItsReport(seen["reportFrame"]!, "the report");
        Assert.Equal($"StorageBench run {seen["runId"]} — Completed", (string?)seen["reportTitle"]);
        Assert.True((int)seen["reportCharts"]! >= 2, "the report shows its latency histogram and timeline");
        // Compared: one row per metric with its verdict, as storagebench compare has them.
        Assert.Equal("", (string?)seen["compareMessage"]);
        Assert.StartsWith("Verdict: ", (string?)seen["verdict"]);
        var rows = seen["compareRows"]!.AsArray();
        Assert.NotEmpty(rows);
        Assert.All(rows, r => Assert.Equal(9, r!.AsArray().Count));
        Assert.Contains(rows, r => (string?)r![1] == "throughput");
        AssertHoldsItsReport(seen["compareFrames"]![0]!, "the baseline's report");
        AssertHoldsItsReport(seen["compareFrames"]![1]!, "the candidate's report");
        // Canceled with the page's button while it wrote: the run's status is Canceled, the one word in the header; elapsed
        // stopped within the planned 120 s, the chart has no point past it, and the page stopped polling the run.
        Assert.True((bool)seen["cancelShownWhileRunning"]!);
        Assert.Equal("Running", (string?)seen["statusWhileRunning"]);
        Assert.Equal("Canceled", (string?)seen["canceledStatus"]);
        Assert.Equal(["Canceled"], seen["canceledHeaderStatusWords"]!.AsArray().Select(w => (string?)w));
        Assert.False((bool)seen["cancelShownAfterEnd"]!);
        Assert.Equal($"StorageBench run {seen["cancelRunId"]} — Canceled", (string?)seen["canceledReportTitle"]);
        double elapsed = double.Parse((string)seen["canceledElapsed"]!, System.Globalization.CultureInfo.InvariantCulture);
        Assert.InRange(elapsed, 0, 120);
        var done = System.Text.RegularExpressions.Regex.Match((string)seen["canceledDone"]!, @" in ([\d.]+) of 120 s$");
        Assert.True(done.Success, (string?)seen["canceledDone"]);
        Assert.InRange(double.Parse(done.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture), 0, 120);
        Assert.All(seen["canceledPointsX"]!.AsArray(), x => Assert.InRange((double)x!, 0, elapsed));
        Assert.Equal(0, (int)seen["statusPollsAfterEnd"]!);
    }

    /// <summary>The frame is as large as the report in it (nothing cut), and the box around it scrolls sideways for a wider one.</summary>
    private static void AssertHoldsItsReport(JsonNode fit, string what)
    {
        Assert.True((int)fit["contentHeight"]! <= (int)fit["frameHeight"]! && (int)fit["contentWidth"]! <= (int)fit["frameWidth"]!,
            $"{what} is cut by its frame: {fit.ToJsonString()}");
        Assert.True((bool)fit["boxScrolls"]!, $"{what}: the box around the frame does not scroll: {fit.ToJsonString()}");
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

    private static async Task<JsonObject> BrowserAsync(Uri address, string shots) =>
        await BrowserScript.RunAsync("dashboard-browser.js", TimeSpan.FromMinutes(8), address.ToString(), shots);
}
