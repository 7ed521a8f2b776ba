using System.Net.Http.Headers;
using System.Text;
using System.Text.Json.Nodes;
using CsCheck;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Logging.Abstractions;
using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Cost;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Targets;
using StorageBench.Functions;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// Bad input gets one answer from both hosts of the runs API, `storagebench serve` (over HTTP on loopback) and the Function
/// App (its HTTP functions called as the worker calls them): the same status and body, naming the field, the value and the
/// rule; nothing is looked up or scheduled (<see cref="UnreachableClient"/> fails a request that reaches the engine).
/// </summary>
[Trait("Category", "Unit")]
[System.Diagnostics.CodeAnalysis.SuppressMessage("Reliability", "CA1001", Justification = "xUnit ends the server and clients through IAsyncLifetime.DisposeAsync.")]
public sealed class ApiHostsTests : IAsyncLifetime
{
    // Never contacted: every request here is refused before the preflight or the results table.
    private static readonly StorageTarget Target = StorageTarget.FromConnectionString("UseDevelopmentStorage=true");
    private readonly ResultsTableStore _results = new(Target);
    private LoopbackServer _serve = null!;
    private HttpClient _http = null!;

    public async Task InitializeAsync()
    {
        _serve = await LocalApiServer.StartAsync(new RunsApi(new UnreachableClient(), _results, new TargetCleaner([Target]), TimeProvider.System, "local-api"), port: 0, default);
        _http = new HttpClient { BaseAddress = _serve.Address };
    }

    public async Task DisposeAsync()
    {
        _http.Dispose();
        await _serve.DisposeAsync();
        _results.Dispose();
    }

    private static readonly byte[] Spec = Encoding.UTF8.GetBytes("""{ "scenario": "hosts", "tableInsert": { "entityCount": 100, "batchSize": 100 } }""");

    [Theory]
    [InlineData("POST", "api/runs", "text/plain", 415, "Content-Type", "\"text/plain\"")]
    [InlineData("POST", "api/runs", "application/json; charset=utf-16", 415, "Content-Type", "\"application/json; charset=utf-16\"")]
    [InlineData("POST", "api/runs", "multipart/form-data; boundary=x", 415, "Content-Type", "\"multipart/form-data; boundary=x\"")]
    [InlineData("POST", "api/runs", "application/x-www-form-urlencoded", 415, "Content-Type", "\"application/x-www-form-urlencoded\"")]   // a browser's cross-site form; curl without -H
    [InlineData("POST", "api/runs?id=", "application/json", 400, "id", "\"\"")]
    [InlineData("GET", "api/runs/Not_An_Id", null, 400, "id", "\"Not_An_Id\"")]
    [InlineData("POST", "api/runs/run..1/cancel", null, 400, "id", "\"run..1\"")]
    [InlineData("GET", "api/runs/-leading-dash/report", null, 400, "id", "\"-leading-dash\"")]
    [InlineData("GET", "api/runs?last=", null, 400, "last", "\"\"")]
    [InlineData("GET", "api/runs?last=abc", null, 400, "last", "\"abc\"")]
    [InlineData("GET", "api/runs?scenario=quick&last=1001", null, 400, "last", "\"1001\"")]
    [InlineData("GET", "api/compare?baseline=A_B&candidate=ok", null, 400, "baseline", "\"A_B\"")]
    public async Task BadInputGetsTheSameAnswerFromServeAndTheFunctionApp(string method, string target, string? contentType, int status, string field, string value)
    {
        byte[]? body = method == "POST" && target.StartsWith("api/runs", StringComparison.Ordinal) && !target.EndsWith("/cancel", StringComparison.Ordinal) ? Spec : null;

        var serve = await ServeAsync(method, target, contentType, body);
        var functions = await FunctionAppAsync(method, target, contentType, body);

        Assert.Equal(status, serve.Status);
        Assert.True(JsonNode.DeepEquals(serve.Body, functions.Body), $"serve: {serve.Body.ToJsonString()}\nFunction App: {functions.Body.ToJsonString()}");
        Assert.Equal(status, functions.Status);
        var error = serve.Body["errors"]!.AsArray().Single()!;
        Assert.Equal((field, value), ((string?)error["field"], (string?)error["value"]));
        Assert.Contains($"{field}: {value} ", (string)serve.Body["message"]!);
    }

    [Fact]
    public async Task ABodyThatIsNotUtf8Is400NamingTheEncodingAndTheByteInBothHosts()
    {
        byte[] latin1 = [.. Spec[..15], 0xE9, .. Spec[15..]];   // "é" saved as Latin-1 inside the scenario name

        foreach (var (status, body) in new[] { await ServeAsync("POST", "api/runs", "application/json", latin1), await FunctionAppAsync("POST", "api/runs", "application/json", latin1) })
        {
            Assert.Equal(400, status);
            Assert.Equal("body: byte 0xE9 at offset 15 is not UTF-8: a run spec is JSON in UTF-8 (a byte order mark is allowed); nothing was started", (string?)body["message"]);
            Assert.Equal("body", (string?)body["errors"]![0]!["field"]);
        }
    }

    [Fact]
    public void AnyBodyWithAByteThatIsNotUtf8IsRefusedNamingTheEncodingAndValidTextIsRead()
    {
        var gen = Gen.String.Select(Gen.Int[0, 1000], Gen.OneOf<byte>(0x80, 0xBF, 0xC0, 0xC1, 0xF5, 0xFE, 0xFF));
        gen.Sample((text, at, bad) =>
        {
            byte[] valid = Encoding.UTF8.GetBytes(text);
            var (read, refused) = RunsApi.ReadBodyAsync(new MemoryStream(valid), valid.Length, "application/json", default).GetAwaiter().GetResult();
            Assert.Null(refused);
            string decoded = Encoding.UTF8.GetString(valid);
            Assert.Equal(decoded.StartsWith('\uFEFF') ? decoded[1..] : decoded, read);   // a leading byte order mark is skipped

            int cut = Math.Min(at, valid.Length);
            byte[] broken = [.. valid[..cut], bad, .. valid[cut..]];
            var (none, answer) = RunsApi.ReadBodyAsync(new MemoryStream(broken), null, null, default).GetAwaiter().GetResult();
            Assert.Null(none);
            Assert.Equal(400, answer!.StatusCode);
            Assert.Equal("body", (string?)answer.Body["errors"]![0]!["field"]);
            Assert.Contains("is not UTF-8", (string?)answer.Body["message"]);
        }, iter: 2000);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("application/json")]
    [InlineData("application/json; charset=utf-8")]
    [InlineData("Application/JSON; charset=\"UTF-8\"")]
    [InlineData("text/json")]
    [InlineData("application/merge-patch+json")]
    public void JsonOrNoContentTypeIsReadAsASpec(string? contentType) => Assert.Null(RunsApi.ContentTypeError(contentType));

    private async Task<(int Status, JsonNode Body)> ServeAsync(string method, string target, string? contentType, byte[]? body)
    {
        using var request = new HttpRequestMessage(new HttpMethod(method), target);
        if (body is not null)
        {
            request.Content = new ByteArrayContent(body);
            request.Content.Headers.ContentType = contentType is null ? null : MediaTypeHeaderValue.Parse(contentType);
        }
        using var response = await _http.SendAsync(request);
        return ((int)response.StatusCode, JsonNode.Parse(await response.Content.ReadAsStringAsync())!);
    }

    /// <summary>The request as the Functions host hands it to the function its route names.</summary>
    private async Task<(int Status, JsonNode Body)> FunctionAppAsync(string method, string target, string? contentType, byte[]? body)
    {
        var uri = new Uri(new Uri("http://localhost/"), target);
        var request = new DefaultHttpContext().Request;
        (request.Method, request.Scheme, request.Host, request.Path, request.QueryString) = (method, "http", new HostString("localhost"), uri.AbsolutePath, new QueryString(uri.Query));
        if (body is not null)
        {
            (request.Body, request.ContentLength, request.ContentType) = (new MemoryStream(body), body.Length, contentType);
        }
        var functions = new RunsFunctions(_results, new TargetCleaner([Target]), TimeProvider.System, PriceTableReader.BuiltIn, NullLoggerFactory.Instance);
        var context = new TestFunctionContext(CancellationToken.None);
        // No Durable client: a request that reached it would fail (500), and the answers would differ from serve's.
        IActionResult result = (method, uri.AbsolutePath.Split('/', StringSplitOptions.RemoveEmptyEntries)) switch
        {
            ("POST", ["api", "runs"]) => await functions.StartRun(request, null!, context),
            ("GET", ["api", "runs"]) => await functions.ListRuns(request, null!, context),
            ("GET", ["api", "runs", var id]) => await functions.GetRun(request, id, null!, context),
            ("POST", ["api", "runs", var id, "cancel"]) => await functions.CancelRun(request, id, null!, context),
            ("GET", ["api", "runs", var id, "report"]) => await functions.RunReport(request, id, null!, context),
            ("GET", ["api", "compare"]) => await functions.CompareRuns(request, null!, context),
            _ => throw new ArgumentException($"no function for {method} {target}"),
        };
        var content = Assert.IsType<ContentResult>(result);
        Assert.Equal("application/json", content.ContentType);
        return (content.StatusCode!.Value, JsonNode.Parse(content.Content!)!);
    }
}
