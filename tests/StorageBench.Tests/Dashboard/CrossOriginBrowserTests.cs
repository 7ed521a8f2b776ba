using System.Text.Json.Nodes;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using StorageBench.Cli;

namespace StorageBench.Tests;

/// <summary>
/// `storagebench serve` tried from another site in real headless Chromium (cross-origin-browser.js), as a page the user
/// visits would (issue 43): the cross-site form and fetches and a DNS-rebound name are refused by serve itself, as the
/// statuses on the browser's wire show, while its dashboard and same-origin calls reach the API. The API behind it has
/// no engine (<see cref="UnreachableClient"/>): a request that got through would answer 500, not a refusal.
/// </summary>
[Trait("Category", "EndToEnd")]
public class CrossOriginBrowserTests
{
    private const string EvilSpec = """{ "scenario": "evil", "tableInsert": { "batchSize": 150 } }""";

    [RequiresToolFact("chromium")]
    public async Task AnotherSitesPageCannotDriveServeAndItsOwnPageStillCan()
    {
        await using var engineLess = await EngineLessServe.StartAsync();
        var serve = engineLess.Server;
        await using var other = await LoopbackServer.StartAsync(0, app =>
        {
            app.MapGet("/attack", () => Results.Content("<!doctype html><title>another site</title>", "text/html"));
            // The classic form-encoded JSON: the field's name and value join into {"scenario": …, "x": "="}.
            app.MapGet("/form", () => Results.Content($$"""
                <!doctype html><title>another site's form</title>
                <form method="post" action="{{serve.Address}}api/runs" enctype="application/x-www-form-urlencoded">
                <input type="hidden" name='{{EvilSpec[..^1]}}, "x": "' value='"}'></form>
                """, "text/html"));
        });

        var seen = await BrowserAsync(serve.Address, other.Address);

        // Every cross-site request reached serve (a request the browser stopped by itself would have no status) and was refused there.
        foreach (string attempt in new[] { "form-encoded", "text-plain", "no-type", "cancel" })
        {
            Assert.Equal(403, (int)seen["crossSite"]![attempt]!["status"]!);
        }
        AssertRefused(seen["form"]!, 403, "Origin");
        AssertRefused(seen["rebind"]!, 403, "Host");
        // Its own page and same-origin calls are served: the API judged the spec and the id.
        Assert.Equal(200, (int)seen["dashboard"]!["status"]!);
        Assert.Equal("StorageBench dashboard", (string?)seen["dashboard"]!["title"]);
        AssertRefused(seen["sameOrigin"]!["post"]!, 400, "tableInsert.batchSize");
        AssertRefused(seen["sameOrigin"]!["get"]!, 400, "id");
    }

    /// <summary>The answer had the status, in the one error shape, naming the field.</summary>
    private static void AssertRefused(JsonNode answer, int status, string field)
    {
        Assert.Equal(status, (int)answer["status"]!);
        var body = JsonNode.Parse((string)answer["body"]!)!;
        Assert.Equal(status, (int)body["status"]!);
        Assert.Equal(field, (string?)body["errors"]![0]!["field"]);
    }

    private static async Task<JsonObject> BrowserAsync(Uri serve, Uri other) =>
        await BrowserScript.RunAsync("cross-origin-browser.js", TimeSpan.FromMinutes(4), serve.ToString(), other.ToString());
}
