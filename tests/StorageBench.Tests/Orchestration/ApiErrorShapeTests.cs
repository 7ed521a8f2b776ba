using System.Net;
using System.Text.Json.Nodes;
using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>Every 4xx/5xx of the runs API has one shape, {status, message, errors}, with plain quotes; the status codes are the contract's.</summary>
[Trait("Category", "Azurite")]
[Collection(OrchestrationAzuriteCollection.Name)]
public class ApiErrorShapeTests(AzuriteFixture azurite)
{
    [Fact]
    public async Task EveryErrorHasTheOneShapeWithPlainQuotes413Included()
    {
        await using var hub = await azurite.NewHubAsync();
        var api = new RunsApi(hub, azurite.Results, new TargetCleaner([azurite.Target]), TimeProvider.System, "http");
        await using var server = await LocalApiServer.StartAsync(api, port: 0, default);
        using var http = new HttpClient { BaseAddress = server.Address };
        var tablesBefore = await azurite.TableNamesAsync();

        var cases = new (HttpResponseMessage Response, HttpStatusCode Status, string Message)[]
        {
            (await http.PostAsync("api/runs", new StringContent("""{ "scenario": "shape", "tableInsert": { "batchSize": 150 } }""", System.Text.Encoding.UTF8, "application/json")),
                HttpStatusCode.BadRequest, "the run spec was rejected; nothing was started: tableInsert.batchSize: 150 exceeds the service limit of 100 entities per transaction"),
            (await http.GetAsync("api/runs/no-such-run"), HttpStatusCode.NotFound, "no run with id \"no-such-run\""),
            (await http.PostAsync("api/runs/no-such-run/cancel", null), HttpStatusCode.NotFound, "no run with id \"no-such-run\""),
            (await http.GetAsync("api/runs?last=0"), HttpStatusCode.BadRequest, "last: \"0\" must be a whole number from 1 to 1000"),
            (await http.GetAsync("api/nothing-here"), HttpStatusCode.NotFound, "GET /api/nothing-here is not part of the runs API (Not Found)"),
            (await http.PostAsync("api/runs", new ByteArrayContent(new byte[60 * 1024 * 1024])), HttpStatusCode.RequestEntityTooLarge,
                "the request body is larger than 1,048,576 bytes: a run spec is a JSON object of a few KB; nothing was started"),
        };

        foreach (var (response, status, message) in cases)
        {
            string body = await response.Content.ReadAsStringAsync();
            Assert.Equal(status, response.StatusCode);
            Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
            Assert.DoesNotContain("\\u0022", body);
            var json = JsonNode.Parse(body)!.AsObject();
            Assert.Equal(["status", "message", "errors"], json.Select(p => p.Key));
            Assert.Equal((int)status, (int)json["status"]!);
            Assert.StartsWith(message, (string)json["message"]!);
            Assert.IsType<JsonArray>(json["errors"]);
        }
        var fieldError = JsonNode.Parse(await cases[0].Response.Content.ReadAsStringAsync())!["errors"]![0]!;
        Assert.Equal(("tableInsert.batchSize", "150"), ((string?)fieldError["field"], (string?)fieldError["value"]));
        Assert.Equal(tablesBefore, await azurite.TableNamesAsync());
    }

    [Fact]
    public async Task AnIdThatExistsIs409InTheSameShape()
    {
        await using var host = await azurite.NewHubAsync();
        var api = new RunsApi(host, azurite.Results, new TargetCleaner([azurite.Target]), TimeProvider.System, "http");
        const string spec = """{ "scenario": "shape", "startDelaySeconds": 0, "client": { "primeRounds": 0 }, "tableInsert": { "entityCount": 10, "batchSize": 10 } }""";
        string id = "shape-" + Guid.NewGuid().ToString("N")[..8];
        Assert.Equal(202, (await api.StartAsync(spec, new Uri("http://localhost/"), id, default)).StatusCode);

        var again = await api.StartAsync(spec, new Uri("http://localhost/"), id, default);

        Assert.Equal(409, again.StatusCode);
        Assert.Equal($"a run with id \"{id}\" already exists; nothing was started", (string?)again.Body["message"]);
        Assert.Equal("id", (string?)again.Body["errors"]![0]!["field"]);
        Assert.Contains($"\"message\": \"a run with id \\\"{id}\\\" already exists", again.Json);
        await Pipeline.SummaryAsync(host, id);
    }
}
