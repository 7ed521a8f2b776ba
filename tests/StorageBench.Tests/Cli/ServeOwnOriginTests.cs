using System.Net;
using System.Text;
using System.Text.Json.Nodes;
using CsCheck;
using StorageBench.Cli;

namespace StorageBench.Tests;

/// <summary>
/// `storagebench serve` answers only itself (issue 43): a Host that is not its loopback address and port (DNS rebinding),
/// an Origin of another site, or a POST whose Content-Type is not JSON's is refused in the one error shape before any route
/// runs; clients that send no Origin (curl, HttpClient) and the dashboard's own calls are served.
/// </summary>
[Trait("Category", "Unit")]
public class ServeOwnOriginTests
{
    private const int Port = 7071;

    private static readonly Gen<string> ForeignHost = Gen.OneOf(
        Gen.String[Gen.Char.AlphaNumeric, 1, 30].Select(h => $"{h}.example:{Port}"),
        Gen.Int[1, 65535].Where(p => p != Port).Select(p => $"127.0.0.1:{p}"),
        Gen.OneOf<string>($"127.0.0.2:{Port}", $"[::1]:{Port}", "127.0.0.1", $"localhost.evil.example:{Port}", $"0.0.0.0:{Port}", ""));

    [Fact]
    public void AnyHostButItsOwnLoopbackAddressAndPortIsRefusedNamingTheHost()
    {
        ForeignHost.Sample(host =>
        {
            var refused = OwnOriginOnly.Refusal(host, null, "GET", null, Port);
            Assert.Equal(403, refused?.StatusCode);
            Assert.Equal("Host", (string?)refused!.Body["errors"]![0]!["field"]);
        });
    }

    [Fact]
    public void AnyOriginButItsOwnIsRefusedForEveryMethod()
    {
        var origins = Gen.OneOf(ForeignHost.Select(h => "http://" + h), Gen.OneOf<string>("null", $"https://127.0.0.1:{Port}", "http://evil.example", $"http://127.0.0.1:{Port}/x"));
        Gen.Select(origins, Gen.OneOf<string>("GET", "POST", "PUT", "DELETE"), Gen.OneOf<string>($"127.0.0.1:{Port}", $"localhost:{Port}")).Sample((origin, method, host) =>
        {
            var refused = OwnOriginOnly.Refusal(host, origin, method, "application/json", Port);
            Assert.Equal(403, refused?.StatusCode);
            Assert.Equal("Origin", (string?)refused!.Body["errors"]![0]!["field"]);
        });
    }

    [Theory]
    [InlineData("application/x-www-form-urlencoded")]
    [InlineData("multipart/form-data; boundary=x")]
    [InlineData("text/plain")]
    public void APostOfATypeABrowserSendsCrossSiteWithoutAskingIs415(string type) =>
        Assert.Equal(415, OwnOriginOnly.Refusal($"127.0.0.1:{Port}", null, "POST", type, Port)?.StatusCode);

    [Theory]
    [InlineData("127.0.0.1:7071", null, "POST", "application/json")]
    [InlineData("localhost:7071", "http://localhost:7071", "POST", "application/json; charset=utf-8")]
    [InlineData("127.0.0.1:7071", "http://127.0.0.1:7071", "POST", null)]   // the dashboard's cancel: no body
    [InlineData("LOCALHOST:7071", null, "GET", null)]
    public void ItsOwnPageAndClientsWithoutAnOriginAreServed(string host, string? origin, string method, string? type) =>
        Assert.Null(OwnOriginOnly.Refusal(host, origin, method, type, Port));

    [Fact]
    public async Task OverHttpARebindingHostAndAForeignOriginAreRefusedInTheOneShapeAndPlainCallsReachTheApi()
    {
        await using var serve = await EngineLessServe.StartAsync();
        var (server, http) = (serve.Server, serve.Http);

        async Task<(HttpStatusCode, JsonNode)> Send(string route, string? host, string? origin)
        {
            using var request = new HttpRequestMessage(HttpMethod.Post, route) { Content = new StringContent("""{ "scenario": "x", "tableInsert": { "batchSize": 150 } }""", Encoding.UTF8, "application/json") };
            request.Headers.Host = host;
            if (origin is not null)
            {
                request.Headers.Add("Origin", origin);
            }
            using var response = await http.SendAsync(request);
            return (response.StatusCode, JsonNode.Parse(await response.Content.ReadAsStringAsync())!);
        }

        var (rebound, rebindBody) = await Send("api/runs", $"rebind.evil.example:{server.Address.Port}", null);
        var (crossSite, crossBody) = await Send("api/runs", null, "http://evil.example");
        var (own, ownBody) = await Send("api/runs", null, server.Address.GetLeftPart(UriPartial.Authority));

        Assert.Equal((HttpStatusCode.Forbidden, "Host", $"\"rebind.evil.example:{server.Address.Port}\""), (rebound, (string?)rebindBody["errors"]![0]!["field"], (string?)rebindBody["errors"]![0]!["value"]));
        Assert.Equal((HttpStatusCode.Forbidden, "Origin"), (crossSite, (string?)crossBody["errors"]![0]!["field"]));
        // Its own origin reaches the API, which judges the spec.
        Assert.Equal((HttpStatusCode.BadRequest, "tableInsert.batchSize"), (own, (string?)ownBody["errors"]![0]!["field"]));
    }
}
