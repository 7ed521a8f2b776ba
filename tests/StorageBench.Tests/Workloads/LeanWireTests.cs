using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.TableInsert;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using Azure.Storage.Blobs.Specialized;
using StorageBench.Benchmarks;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>
/// The lean driver sends what the Azure SDK sends: both drivers' requests for an EGT batch, a single
/// insert, a Put Block and a Put Block List are captured on a loopback server (the floor server, which
/// answers as storage does) and compared — method, path, query, the headers storage reads, the body's
/// meaning (multipart parts and their JSON entities, block bytes, block list XML) — and both signatures
/// must verify under the service's canonicalization, computed here independently from the captured request.
/// </summary>
[Trait("Category", "Unit")]
public partial class LeanWireTests
{
    private const string Key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    /// <summary>Headers that are per request by design: compared by form and signature, not value.</summary>
    private static readonly HashSet<string> PerRequest = new(StringComparer.OrdinalIgnoreCase) { "x-ms-date", "x-ms-client-request-id", "Authorization", "Host", "User-Agent" };

    [Theory]
    [InlineData(1024, 100)]
    [InlineData(70_000, 3)]   // two binary properties (64 KiB + the rest): property order and annotations
    [InlineData(1024, 1)]     // a single insert
    public async Task TableInsertsAreTheSdksOnTheWire(int entityBytes, int batchSize)
    {
        await using var server = await FloorServer.StartAsync(capture: true);
        using var clients = StorageTarget.FromConnectionString(server.ConnectionString).CreateClients(new ClientSettings());
        var table = clients.Tables.GetTableClient("wiretable");
        var payload = new EntityPayload(entityBytes);

        ITableInserts sdk = new SdkTableInserts(table, payload, batchSize), lean = new LeanTableInserts(clients.Lean, clients.TableWire, table.Name, payload, batchSize);
        foreach (var driver in new[] { sdk, lean })
        {
            using (driver)
            {
                driver.Prepare("p00007", "a1b2c3d4", 3, 123_456, batchSize);
                await driver.SendAsync();
            }
        }

        var (fromSdk, fromLean) = Pair(server);
        AssertSameRequest(fromSdk, fromLean);
        Assert.StartsWith("SharedKeyLite devstoreaccount1:", fromLean.Headers["Authorization"]);
        foreach (var request in new[] { fromSdk, fromLean })
        {
            Assert.Equal(SharedKeyLite(request), request.Headers["Authorization"]);
        }
        if (batchSize == 1)
        {
            AssertSameJson(fromSdk.Body, fromLean.Body);
        }
        else
        {
            AssertSameBatch(fromSdk, fromLean, batchSize);
        }
        Assert.Equal(2, clients.TableWire.Sent);   // the lean request counts on the SDK's wire counter
    }

    [Fact]
    public async Task PutBlockAndPutBlockListAreTheSdksOnTheWire()
    {
        await using var server = await FloorServer.StartAsync(capture: true);
        using var clients = StorageTarget.FromConnectionString(server.ConnectionString).CreateClients(new ClientSettings());
        var container = clients.Blobs.GetBlobContainerClient("wirecontainer");
        // Ids with characters a query must escape ('+', '/', '=').
        string[] ids = ["YmxvY2s+LzAwMA==", "YmxvY2s+LzAwMQ=="];
        byte[] block = new byte[10_000];
        Random.Shared.NextBytes(block);
        const string blobName = "a1b2c3d4/s003-0000001";
        using var lean = new LeanBlockUploads(clients.Lean, clients.BlobWire, container.Name, ids, workers: 1);

        var blob = container.GetBlockBlobClient(blobName);
        await blob.StageBlockAsync(ids[1], new MemoryStream(block, 0, 7_000));
        await lean.StageBlockAsync(0, lean.Blob(blobName), 1, block, 7_000);
        await blob.CommitBlockListAsync(ids);
        await lean.CommitBlockListAsync(lean.Blob(blobName));

        var captured = server.Captured.ToArray();
        Assert.Equal(4, captured.Length);
        foreach (var (fromSdk, fromLean) in new[] { (captured[0], captured[1]), (captured[2], captured[3]) })
        {
            AssertSameRequest(fromSdk, fromLean);
            Assert.Equal(fromSdk.Body, fromLean.Body);
            Assert.StartsWith("SharedKey devstoreaccount1:", fromLean.Headers["Authorization"]);
            foreach (var request in new[] { fromSdk, fromLean })
            {
                Assert.Equal(SharedKey(request), request.Headers["Authorization"]);
            }
        }
        Assert.Equal(block[..7_000], captured[1].Body);
        Assert.Equal(4, clients.BlobWire.Sent);
    }

    /// <summary>The check must be able to fail: a lean request whose body or signature differ is caught.</summary>
    [Fact]
    public async Task TheComparisonFlagsADifferentBodyAndABadSignature()
    {
        await using var server = await FloorServer.StartAsync(capture: true);
        using var clients = StorageTarget.FromConnectionString(server.ConnectionString).CreateClients(new ClientSettings());
        var table = clients.Tables.GetTableClient("wiretable");
        var payload = new EntityPayload(256);
        using (var sdk = new SdkTableInserts(table, payload, 10))
        {
            sdk.Prepare("p00007", "a1b2c3d4", 3, 1, 10);
            await sdk.SendAsync();
        }
        using (var lean = new LeanTableInserts(clients.Lean, clients.TableWire, table.Name, payload, 10))
        {
            lean.Prepare("p00007", "a1b2c3d4", 3, 2, 10);   // another batch number: other row keys
            await lean.SendAsync();
        }
        var (fromSdk, fromLean) = Pair(server);
        Assert.ThrowsAny<Exception>(() => AssertSameBatch(fromSdk, fromLean, 10));
        var forged = fromLean with { Headers = new Dictionary<string, string>(fromLean.Headers, StringComparer.OrdinalIgnoreCase) { ["x-ms-date"] = "Thu, 01 Jan 2026 00:00:00 GMT" } };
        Assert.NotEqual(SharedKeyLite(forged), forged.Headers["Authorization"]);
    }

    private static (CapturedRequest Sdk, CapturedRequest Lean) Pair(FloorServer server)
    {
        var captured = server.Captured.ToArray();
        Assert.Equal(2, captured.Length);
        return (captured[0], captured[1]);
    }

    private static void AssertSameRequest(CapturedRequest sdk, CapturedRequest lean)
    {
        Assert.Equal(sdk.Method, lean.Method);
        Assert.Equal(sdk.Path, lean.Path);
        Assert.Equal(Query(sdk.Query), Query(lean.Query));
        var names = sdk.Headers.Keys.Concat(lean.Headers.Keys).Where(n => !PerRequest.Contains(n)).Distinct(StringComparer.OrdinalIgnoreCase);
        foreach (string name in names)
        {
            Assert.True(lean.Headers.ContainsKey(name) && sdk.Headers.ContainsKey(name), $"header {name}: only one driver sends it");
            Assert.Equal(WithoutBoundaryId(sdk.Headers[name]), WithoutBoundaryId(lean.Headers[name]));
        }
        foreach (string name in PerRequest)
        {
            Assert.Equal(sdk.Headers.ContainsKey(name), lean.Headers.ContainsKey(name));
        }
        Assert.Matches(GuidPattern(), lean.Headers["x-ms-client-request-id"]);
        Assert.True(DateTimeOffset.TryParse(lean.Headers["x-ms-date"], out _));
    }

    /// <summary>Same parts in the same order: each part's request line and headers equal, each entity equal as JSON.</summary>
    private static void AssertSameBatch(CapturedRequest sdk, CapturedRequest lean, int operations)
    {
        string[] sdkParts = Parts(sdk.Body), leanParts = Parts(lean.Body);
        Assert.Equal(operations + 2, sdkParts.Length);    // the batch head, the operations, the closing delimiters
        Assert.Equal(sdkParts.Length, leanParts.Length);
        Assert.Equal(sdkParts[0], leanParts[0]);
        Assert.Equal(sdkParts[^1], leanParts[^1]);
        for (int i = 1; i <= operations; i++)
        {
            int sdkJson = sdkParts[i].IndexOf('{'), leanJson = leanParts[i].IndexOf('{');
            Assert.Equal(sdkParts[i][..sdkJson], leanParts[i][..leanJson]);
            AssertSameJson(Encoding.UTF8.GetBytes(sdkParts[i][sdkJson..]), Encoding.UTF8.GetBytes(leanParts[i][leanJson..]));
        }
    }

    private static string[] Parts(byte[] body) => WithoutBoundaryId(Encoding.UTF8.GetString(body)).Split("--changeset_ID");

    private static void AssertSameJson(byte[] sdk, byte[] lean) =>
        Assert.True(JsonNode.DeepEquals(JsonNode.Parse(sdk), JsonNode.Parse(lean)), $"entities differ:\nsdk:  {Encoding.UTF8.GetString(sdk)}\nlean: {Encoding.UTF8.GetString(lean)}");

    private static Dictionary<string, string> Query(string query) =>
        query.TrimStart('?').Split('&', StringSplitOptions.RemoveEmptyEntries).Select(p => p.Split('=', 2))
            .ToDictionary(p => Uri.UnescapeDataString(p[0]), p => Uri.UnescapeDataString(p.Length > 1 ? p[1] : ""));

    [GeneratedRegex("(batch|changeset)_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")]
    private static partial Regex Boundary();

    [GeneratedRegex("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")]
    private static partial Regex GuidPattern();

    /// <summary>Multipart boundaries are fresh GUIDs on both drivers: their form is compared, not their value.</summary>
    private static string WithoutBoundaryId(string text) => Boundary().Replace(text, m => m.Groups[1].Value + "_ID");

    /// <summary>Shared Key Lite, Table service: HMAC of x-ms-date + "\n" + "/" + account + path.</summary>
    private static string SharedKeyLite(CapturedRequest request) =>
        "SharedKeyLite devstoreaccount1:" + Hmac($"{request.Headers["x-ms-date"]}\n/devstoreaccount1{request.Path}");

    /// <summary>Shared Key, Blob service (2009-09-19+): verb, standard headers, x-ms-* headers sorted, then resource and sorted query.</summary>
    private static string SharedKey(CapturedRequest request)
    {
        string H(string name) => request.Headers.TryGetValue(name, out var v) ? v : "";
        string length = H("Content-Length") is "0" ? "" : H("Content-Length");
        var msHeaders = request.Headers.Where(h => h.Key.StartsWith("x-ms-", StringComparison.OrdinalIgnoreCase))
            .OrderBy(h => h.Key.ToLowerInvariant(), StringComparer.Ordinal).Select(h => $"{h.Key.ToLowerInvariant()}:{h.Value}\n");
        var query = Query(request.Query).OrderBy(q => q.Key, StringComparer.Ordinal).Select(q => $"\n{q.Key}:{q.Value}");
        string toSign = $"{request.Method}\n{H("Content-Encoding")}\n{H("Content-Language")}\n{length}\n{H("Content-MD5")}\n{H("Content-Type")}\n{H("Date")}\n" +
            $"{H("If-Modified-Since")}\n{H("If-Match")}\n{H("If-None-Match")}\n{H("If-Unmodified-Since")}\n{H("Range")}\n{string.Concat(msHeaders)}/devstoreaccount1{request.Path}{string.Concat(query)}";
        return "SharedKey devstoreaccount1:" + Hmac(toSign);
    }

    private static string Hmac(string text) => Convert.ToBase64String(HMACSHA256.HashData(Convert.FromBase64String(Key), Encoding.UTF8.GetBytes(text)));
}
