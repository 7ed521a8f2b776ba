using System.Net;
using System.Text;
using System.Text.Json.Nodes;
using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>The HTTP contract behind POST /api/runs and GET /api/runs/{id}: directly, and over real HTTP on loopback.</summary>
[Trait("Category", "EndToEnd")]
[Collection(OrchestrationAzuriteCollection.Name)]
public class RunsApiTests(AzuriteFixture azurite) : IAsyncLifetime
{
    private StorageBench.TaskHub.LocalTaskHub _hub = null!;

    public async Task InitializeAsync() => _hub = await azurite.NewHubAsync();

    public async Task DisposeAsync() => await _hub.DisposeAsync();

    private const string Spec = """{ "scenario": "api", "startDelaySeconds": 0, "tableInsert": { "entityCount": 500, "batchSize": 100 } }""";

    private RunsApi NewApi() => new(_hub, azurite.Results, new TargetCleaner([azurite.Target]), TimeProvider.System, "http");

    [Fact]
    public async Task ARejectedSpecIs400WithFieldValueAndRuleAndStartsNothing()
    {
        var tablesBefore = await azurite.TableNamesAsync();
        var response = await NewApi().StartAsync("""{ "scenario": "api", "tableInsert": { "batchSize": 150 } }""", new Uri("http://localhost/"), null, default);

        Assert.Equal(400, response.StatusCode);
        var error = response.Body["errors"]![0]!;
        Assert.Equal("tableInsert.batchSize", (string?)error["field"]);
        Assert.Equal("150", (string?)error["value"]);
        Assert.Equal("exceeds the service limit of 100 entities per transaction", (string?)error["rule"]);
        Assert.Equal(tablesBefore, await azurite.TableNamesAsync());
    }

    [Fact]
    public async Task AStartedRunIs202WithAStatusUrlThatEndsIn200WithTheSummary()
    {
        var api = NewApi();
        var start = await api.StartAsync(Spec, new Uri("https://bench.example/"), null, default);
        Assert.Equal(202, start.StatusCode);
        string id = (string)start.Body["id"]!;
        Assert.Equal($"https://bench.example/api/runs/{id}", (string?)start.Body["statusQueryGetUri"]);

        var status = await Waits.UntilAsync(() => api.GetAsync(id, default), s => s.StatusCode != 202, TimeSpan.FromMinutes(3), $"run {id} ended");
        Assert.Equal(200, status.StatusCode);
        Assert.Equal("Completed", (string?)status.Body["status"]);
        Assert.Equal("Completed", (string?)status.Body["orchestrationStatus"]);
        Assert.Equal("Completed", (string?)status.Body["result"]!["status"]);
        Assert.Equal(500, (long)status.Body["result"]!["workloads"]![0]!["entities"]!);
        Assert.Equal(404, (await api.GetAsync("no-such-run", default)).StatusCode);
    }

    [Fact]
    public async Task AStartedRunsLinksCarryTheCallersKeyAndServesCarryNone()
    {
        var api = NewApi();
        var keyed = await api.StartAsync(Spec, new RunLinks(new Uri("https://bench.example/"), "k/e+y=="), null, default);
        var bare = await api.StartAsync(Spec, new Uri("https://bench.example/"), null, default);

        Assert.Equal(202, keyed.StatusCode);
        string id = (string)keyed.Body["id"]!;
        Assert.Equal($"https://bench.example/api/runs/{id}?code=k%2Fe%2By%3D%3D", keyed.Location);
        Assert.Equal(keyed.Location, (string?)keyed.Body["statusQueryGetUri"]);
        Assert.Equal($"https://bench.example/api/runs/{id}/cancel?code=k%2Fe%2By%3D%3D", (string?)keyed.Body["cancelPostUri"]);
        Assert.Equal($"https://bench.example/api/runs/{id}/report?code=k%2Fe%2By%3D%3D", (string?)keyed.Body["reportGetUri"]);
        string bareId = (string)bare.Body["id"]!;
        Assert.Equal($"https://bench.example/api/runs/{bareId}", bare.Location);
        Assert.Equal($"https://bench.example/api/runs/{bareId}/cancel", (string?)bare.Body["cancelPostUri"]);
        Assert.Equal($"https://bench.example/api/runs/{bareId}/report", (string?)bare.Body["reportGetUri"]);
        foreach (string run in new[] { id, bareId })
        {
            await Waits.UntilAsync(() => api.GetAsync(run, default), s => s.StatusCode != 202, TimeSpan.FromMinutes(3), $"run {run} ended");
        }
    }

    [Fact]
    public async Task TheLocalServerServesTheSameContractOverHttp()
    {
        await using var server = await LocalApiServer.StartAsync(NewApi(), port: 0, default);
        using var http = new HttpClient { BaseAddress = server.Address };

        var bad = await http.PostAsync("api/runs", new StringContent("""{ "scenario": "" }""", Encoding.UTF8, "application/json"));
        Assert.Equal(HttpStatusCode.BadRequest, bad.StatusCode);
        Assert.Contains("scenario", await bad.Content.ReadAsStringAsync());

        var post = await http.PostAsync("api/runs", new StringContent(Spec, Encoding.UTF8, "application/json"));
        Assert.Equal(HttpStatusCode.Accepted, post.StatusCode);
        var statusUri = new Uri((string)JsonNode.Parse(await post.Content.ReadAsStringAsync())!["statusQueryGetUri"]!);
        Assert.Equal(server.Address.Port, statusUri.Port);

        var get = await Waits.UntilAsync(() => http.GetAsync(statusUri), r => r.StatusCode != HttpStatusCode.Accepted, TimeSpan.FromMinutes(3), $"{statusUri} ended");
        Assert.Equal(HttpStatusCode.OK, get.StatusCode);
        Assert.Equal("application/json", get.Content.Headers.ContentType!.MediaType);
        Assert.True((bool)JsonNode.Parse(await get.Content.ReadAsStringAsync())!["result"]!["workloads"]![0]!["verified"]!["matched"]!);
        Assert.Equal(HttpStatusCode.NotFound, (await http.GetAsync("api/runs/nope")).StatusCode);
    }

    [Fact]
    public async Task EveryAcceptedAnswerSaysWhenToAskAgainAndTheStatusAnswerWhereToAsk()
    {
        await using var server = await LocalApiServer.StartAsync(NewApi(), port: 0, default);
        using var http = new HttpClient { BaseAddress = server.Address };
        // Its slices wait out a 5 s start delay, so the first status answer comes while it is still pending or running.
        var post = await http.PostAsync("api/runs", new StringContent(Spec.Replace("\"startDelaySeconds\": 0", "\"startDelaySeconds\": 5", StringComparison.Ordinal),
            Encoding.UTF8, "application/json"));
        Assert.Equal(HttpStatusCode.Accepted, post.StatusCode);
        Assert.Equal(TimeSpan.FromSeconds(ApiResponse.RetryAfterSeconds), post.Headers.RetryAfter?.Delta);
        var statusUri = post.Headers.Location!;

        var running = await http.GetAsync(statusUri);

        Assert.Equal(HttpStatusCode.Accepted, running.StatusCode);
        Assert.Equal(statusUri, running.Headers.Location);
        Assert.Equal(TimeSpan.FromSeconds(ApiResponse.RetryAfterSeconds), running.Headers.RetryAfter?.Delta);
        var done = await Waits.UntilAsync(() => http.GetAsync(statusUri), r => r.StatusCode != HttpStatusCode.Accepted, TimeSpan.FromMinutes(3), $"{statusUri} ended");
        Assert.Equal(HttpStatusCode.OK, done.StatusCode);
        Assert.Null(done.Headers.RetryAfter);
        Assert.Null(done.Headers.Location);
    }

    [Fact]
    public async Task AStartedRunSaysWhichWrittenCountItsDurationLeavesUnused()
    {
        var api = NewApi();
        var start = await api.StartAsync("""{ "scenario": "api", "startDelaySeconds": 0, "tableInsert": { "entityCount": 500, "batchSize": 100, "durationSeconds": 1 } }""",
            new Uri("http://localhost/"), null, default);

        Assert.Equal(202, start.StatusCode);
        Assert.Equal("tableInsert.entityCount 500 is not used: durationSeconds 1 runs the workload for a time, not a count", (string?)start.Body["notes"]![0]);
        string id = (string)start.Body["id"]!;
        await Waits.UntilAsync(() => api.GetAsync(id, default), s => s.StatusCode != 202, TimeSpan.FromMinutes(3), $"run {id} ended");
    }

    [Fact]
    public async Task TheListShowsARunThisServerStartedWhileItGoesAndAReportOfARunFromElsewhereSaysWhereItIs()
    {
        var api = NewApi();
        // As curl would start it: the list read after it (by a page opened later) shows it while it waits out its start delay.
        var start = await api.StartAsync(Spec.Replace("\"startDelaySeconds\": 0", "\"startDelaySeconds\": 5", StringComparison.Ordinal), new Uri("http://localhost/"), null, default);
        string id = (string)start.Body["id"]!;

        var list = await api.ListAsync("api", "5", default);

        var row = list.Body["runs"]!.AsArray().Single(r => (string?)r!["runId"] == id)!;
        Assert.Contains((string?)row["status"], new[] { "Pending", "Running" });
        Assert.Equal("api", (string?)row["scenario"]);
        await Waits.UntilAsync(() => api.GetAsync(id, default), s => s.StatusCode != 202, TimeSpan.FromMinutes(3), $"run {id} ended");
        var stored = (await api.ListAsync("api", "50", default)).Body["runs"]!.AsArray().Where(r => (string?)r!["runId"] == id).ToList();
        Assert.Equal("Completed", (string?)Assert.Single(stored)!["status"]);
        Assert.Equal(1, (long)stored[0]!["steps"]!);

        // A run stored by another process (storagebench run, its own hub deleted since): in the list, its report not here.
        string elsewhere = Engine.Planning.Planner.NewRunId(DateTime.UtcNow);
        await azurite.Results.SaveRunAsync(new Engine.Statistics.RunSummary
        {
            RunId = elsewhere, Status = "Completed", StartedUtc = DateTime.UtcNow, EndedUtc = DateTime.UtcNow, Spec = Engine.Spec.RunSpecParser.ParseOrThrow(Spec),
            Environment = new Engine.Statistics.RunEnvironment("Azurite", 1, "cli", "", "", 2),
        }, default);
        var report = await api.ReportAsync(elsewhere, default);
        Assert.Equal(404, report.StatusCode);
        Assert.Contains($"its report is the summary.html in that run's --out folder (out/{elsewhere}/ by default)", (string?)report.Body["message"]);
    }

    [Fact]
    public async Task TheApiReadsASpecAsTheCliDoesWithCommentsTrailingCommasAndAByteOrderMark()
    {
        await using var server = await LocalApiServer.StartAsync(NewApi(), port: 0, default);
        using var http = new HttpClient { BaseAddress = server.Address };
        // What curl --data-binary @spec.json -H "Content-Type: application/json" sends, from a file an editor saved with a BOM.
        byte[] body = [.. Encoding.UTF8.GetPreamble(), .. Encoding.UTF8.GetBytes("""
            // a spec as written in an editor
            { "scenario": "api", "startDelaySeconds": 0, "tableInsert": { "entityCount": 100, "batchSize": 100, }, }
            """)];
        var content = new ByteArrayContent(body);
        content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("application/json");

        var post = await http.PostAsync("api/runs", content);

        Assert.Equal(HttpStatusCode.Accepted, post.StatusCode);
        string id = (string)JsonNode.Parse(await post.Content.ReadAsStringAsync())!["id"]!;
        await Waits.UntilAsync(async () => (await http.GetAsync($"api/runs/{id}")).StatusCode != HttpStatusCode.Accepted, TimeSpan.FromMinutes(3), $"run {id} ended");
    }

    [Fact]
    public async Task WhileARunIsWritingTheStatusCarriesItsLiveProgress()
    {
        var api = NewApi();
        var start = await api.StartAsync("""
            { "scenario": "api", "startDelaySeconds": 0, "tableInsert": { "entitySizeBytes": 256, "batchSize": 50, "slices": 2, "durationSeconds": 6 } }
            """, new Uri("http://localhost/"), null, default);
        string id = (string)start.Body["id"]!;

        JsonNode? live = null;
        var status = await Waits.UntilAsync(() => api.GetAsync(id, default), s =>
        {
            if (s.Body["progress"]?["live"] is { } l && (long)l["units"]! > 0)
            {
                live ??= l.DeepClone();
            }
            return s.StatusCode != 202;
        }, TimeSpan.FromMinutes(3), $"run {id} ended");

        Assert.NotNull(live);
        Assert.Equal("tableInsert", (string?)live["workload"]);
        Assert.Equal("entities", (string?)live["unit"]);
        Assert.Equal(6, (double)live["durationSeconds"]!);
        Assert.Equal(2, (int)live["slicesReporting"]!);
        Assert.True((double)live["unitsPerSecond"]! > 0);
        Assert.True((long)live["units"]! < (long)status.Body["result"]!["workloads"]![0]!["entities"]!, "progress was read while the run was writing");
    }

    [Fact]
    public async Task ACanceledRunIsCanceledInTheApiItsProgressEndsAndASecondCancelSaysItEndedCanceled()
    {
        var api = NewApi();
        var start = await api.StartAsync("""
            { "scenario": "api", "startDelaySeconds": 0, "tableInsert": { "entitySizeBytes": 256, "batchSize": 50, "slices": 2, "durationSeconds": 120 } }
            """, new Uri("http://localhost/"), null, default);
        string id = (string)start.Body["id"]!;
        var running = await Waits.UntilAsync(() => api.GetAsync(id, default),
            s => s.StatusCode != 202 || s.Body["progress"]?["live"] is { } l && (long)l["units"]! > 0, TimeSpan.FromMinutes(3), $"run {id} writing");
        Assert.Equal(202, running.StatusCode);
        Assert.Equal("Running", (string?)running.Body["status"]);

        var canceled = await api.CancelAsync(id, default);

        Assert.Equal(200, canceled.StatusCode);
        // The run's status is Canceled; the orchestration, which ended normally, says Completed under its own name.
        Assert.Equal("Canceled", (string?)canceled.Body["status"]);
        Assert.Equal("Completed", (string?)canceled.Body["orchestrationStatus"]);
        Assert.Null(canceled.Body["runtimeStatus"]);
        Assert.Equal("Canceled", (string?)canceled.Body["result"]!["status"]);
        Assert.Null(canceled.Body["progress"]);   // no "storing result" phase left over: the status says it ended
        var again = await api.CancelAsync(id, default);
        Assert.Equal(409, again.StatusCode);
        Assert.Equal($"run \"{id}\" already ended (Canceled); nothing to cancel", (string?)again.Body["message"]);
    }
}
