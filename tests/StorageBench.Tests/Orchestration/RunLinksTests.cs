using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.WebUtilities;
using StorageBench.Functions;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// The links StartRun returns work as returned (issue 36): in a Function App every route needs a function key, so each link
/// carries the key the caller sent, read as the Functions host reads it; `serve` (no keys) returns bare links.
/// </summary>
[Trait("Category", "Unit")]
public class RunLinksTests
{
    private static readonly Uri Base = new("https://bench.example/");

    [Fact]
    public void WithoutAKeyTheLinksAreBare()
    {
        var links = new RunLinks(Base);

        Assert.Equal("https://bench.example/api/runs/r1", links.Status("r1"));
        Assert.Equal("https://bench.example/api/runs/r1/cancel", links.Cancel("r1"));
        Assert.Equal("https://bench.example/api/runs/r1/report", links.Report("r1"));
    }

    [Fact]
    public void WithAKeyEveryLinkCarriesItAsCodeEscapedSoItReadsBackWhole()
    {
        // Function keys are base64-like: '/', '+' and '=' must survive the query string.
        const string key = "a/b+c==";
        var links = new RunLinks(Base, key);

        foreach (var (link, path) in new[] { (links.Status("r1"), "/api/runs/r1"), (links.Cancel("r1"), "/api/runs/r1/cancel"), (links.Report("r1"), "/api/runs/r1/report") })
        {
            var uri = new Uri(link);
            Assert.Equal(path, uri.AbsolutePath);
            Assert.Equal(key, (string?)QueryHelpers.ParseQuery(uri.Query)["code"]);
        }
        Assert.Equal("https://bench.example/api/runs/r1?code=a%2Fb%2Bc%3D%3D", links.Status("r1"));
        Assert.DoesNotContain(key, links.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("hkey", null, "hkey")]
    [InlineData(null, "qkey", "qkey")]
    [InlineData("hkey", "qkey", "hkey")]   // the host reads the header first, so the links carry the key it checked
    [InlineData(null, null, null)]
    [InlineData("", "", null)]
    public void TheCallersKeyIsReadAsTheFunctionsHostReadsIt(string? header, string? query, string? expected)
    {
        var request = new DefaultHttpContext().Request;
        if (header is not null)
        {
            request.Headers["x-functions-key"] = header;
        }
        if (query is not null)
        {
            request.QueryString = QueryString.Create("code", query);
        }

        Assert.Equal(expected, RunsFunctions.CallerKey(request));
    }

    /// <summary>
    /// No link with Durable's system key leaves the Function App (issue 43): that key terminates, purges or raises events on
    /// every instance, so the app calls none of Durable's builders of management links; its answers carry only the links above.
    /// </summary>
    [Fact]
    public void TheFunctionAppBuildsNoneOfDurablesManagementLinks()
    {
        using var stream = File.OpenRead(typeof(RunsFunctions).Assembly.Location);
        using var pe = new System.Reflection.PortableExecutable.PEReader(stream);
        var metadata = System.Reflection.Metadata.PEReaderExtensions.GetMetadataReader(pe);
        var called = metadata.MemberReferences.Select(h => metadata.GetString(metadata.GetMemberReference(h).Name)).ToHashSet(StringComparer.Ordinal);

        Assert.Contains("StartAsync", called);   // it does read its own calls: the check can see one
        Assert.Empty(called.Intersect(["CreateHttpManagementPayload", "CreateCheckStatusResponse", "CreateCheckStatusResponseAsync", "GetClientHttpManagementPayload"]));
    }
}
