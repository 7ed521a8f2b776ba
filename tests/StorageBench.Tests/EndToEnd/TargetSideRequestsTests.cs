using StorageBench.Engine.Workloads.TableInsert;
using System.Collections.Concurrent;
using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Preflight;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// The target gets only what the workloads use, and every request outside the measured path is counted: a run whose
/// target is reached only through a counting proxy (its connection string names just the proxied endpoints; the task
/// hub and results stay in the fixture's Azurite) completes and verifies, and what the proxy saw is exactly the
/// summary's targetSideRequests.total plus the measured window's requests, phase by phase as the cost lines count them.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(AzuriteCollection.Name)]
public class TargetSideRequestsTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    private const string TableSpec = "\"tableInsert\": { \"entityCount\": 2000, \"entitySizeBytes\": 256, \"batchSize\": 100, \"concurrency\": 2, \"slices\": 2 }";
    private const string BlobSpec = "\"blobUpload\": { \"blobCount\": 4, \"blobSizeBytes\": 262144, \"blockSizeBytes\": 65536, \"parallelBlocks\": 2, \"slices\": 2, \"verifyContent\": true }";

    /// <summary>A proxy in front of each endpoint named ("TableEndpoint", "BlobEndpoint") and a connection string that names only those, through them.</summary>
    private async Task<(StorageTarget Target, List<FaultProxy> Proxies, ConcurrentQueue<string> Seen)> ProxiedAsync(params string[] endpoints)
    {
        var seen = new ConcurrentQueue<string>();
        var proxies = new List<FaultProxy>();
        string cs = $"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={AzuriteServer.DevAccountKey};";
        foreach (string endpoint in endpoints)
        {
            string direct = azurite.ConnectionString.Split(';').Single(p => p.StartsWith(endpoint + "=", StringComparison.Ordinal))[(endpoint.Length + 1)..];
            var proxy = await FaultProxy.StartAsync(new Uri($"http://127.0.0.1:{new Uri(direct).Port}/"), r =>
            {
                seen.Enqueue($"{endpoint} {r.Method} {r.Path}{r.QueryString}");
                return false;
            }, _ => Fault.None);
            proxies.Add(proxy);
            cs += $"{endpoint}={proxy.Address}devstoreaccount1;";
        }
        return (StorageTarget.Parse("--connection-string", cs), proxies, seen);
    }

    [Theory]
    [InlineData("blob")]
    [InlineData("table")]
    [InlineData("both")]
    public async Task ATargetWithOnlyTheWorkloadsServicesIsSentExactlyTheCountedRequests(string services)
    {
        string[] endpoints = services switch { "blob" => ["BlobEndpoint"], "table" => ["TableEndpoint"], _ => ["TableEndpoint", "BlobEndpoint"] };
        string workloads = services switch { "blob" => BlobSpec, "table" => TableSpec, _ => TableSpec + ", " + BlobSpec };
        var spec = RunSpecParser.ParseOrThrow($$"""{ "scenario": "side-requests-{{services}}", "startDelaySeconds": 1, {{workloads}} }""");
        var (target, proxies, seen) = await ProxiedAsync(endpoints);
        try
        {
            await using var hub = await azurite.NewHubAsync(target);
            // As the API starts a run: preflight first (the results store is the fixture's Azurite, not the target).
            var started = await new RunStarter(hub, TimeProvider.System) { Preflight = new StoragePreflight([target], azurite.Results.Target) }
                .StartAsync(spec, "test", null, default);
            Assert.True(started.Started, started.Refused?.Message ?? string.Join("; ", started.Errors));
            var summary = await Pipeline.SummaryAsync(hub, started.RunId!, azurite.Results);

            Assert.Equal(RunStatus.Completed, summary.Status);
            Assert.All(summary.Workloads, w => Assert.True(w.Verified.Matched, w.Verified.Detail));
            var side = Assert.IsType<TargetSideRequests>(summary.TargetSideRequests);
            long Lines(string phase) => summary.Workloads.SelectMany(w => w.Transactions).Where(l => l.Phase == phase).Sum(l => l.Requests);
            long measured = Lines(Phases.Run);
            long sent = proxies.Sum(p => p.Seen);
            output.WriteLine($"{services}: proxy saw {sent}; measured {measured}; outside: preflight {side.Preflight}, prepare {side.Prepare}, priming {side.Priming}, " +
                $"verify {side.Verify}, cleanup {side.Cleanup}, total {side.Total}");

            Assert.Empty(side.Uncounted);
            Assert.Equal(sent, side.Total + measured);
            // One List Tables or List Containers per service used; one create and one delete of the step's table or container.
            Assert.Equal(endpoints.Length, side.Preflight);
            Assert.Equal(endpoints.Length, side.Prepare);
            Assert.Equal(endpoints.Length, side.Cleanup);
            Assert.Equal((Lines(Phases.Setup), Lines(Phases.Priming), Lines(Phases.Verification), Lines(Phases.Cleanup)),
                (side.Prepare, side.Priming, side.Verify, side.Cleanup));
            Assert.True(side.Priming > 0 && side.Verify > 0);
            // Only the proxied services were ever reached: the connection string names no other.
            Assert.All(seen, s => Assert.Contains(s.Split(' ')[0], endpoints));
        }
        finally
        {
            foreach (var proxy in proxies)
            {
                await proxy.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task ABlobOnlyTargetsPreflightAndCleanupSendOnlyBlobRequestsAndCountThem()
    {
        var (target, proxies, seen) = await ProxiedAsync("BlobEndpoint");
        await using var proxy = proxies[0];
        var blobs = RunSpecParser.ParseOrThrow($$"""{ "scenario": "blob-only", {{BlobSpec}} }""");

        var preflight = new StoragePreflight([target], azurite.Results.Target);
        Assert.Null(await preflight.CheckAsync(blobs, default));
        Assert.Equal(1, preflight.TargetRequests);
        Assert.Contains("comp=list", Assert.Single(seen));

        // A table workload on it is refused before any request.
        var refused = await new StoragePreflight([target], azurite.Results.Target).CheckAsync(blobs with { TableInsert = new TableInsertSpec() }, default);
        Assert.StartsWith("tableInsert needs a table endpoint, but --connection-string names none (it has BlobEndpoint only)", refused?.Message);
        Assert.Single(seen);

        // Cleanup lists the containers only: there are no tables to list. (None is selected: other tests' runs share this account.)
        var counted = new WireCounter();
        Assert.Empty(await new TargetCleaner([target], counted).ListAsync(_ => false, default));
        Assert.Equal(1, counted.Sent);
        Assert.Equal(2, seen.Count);
        Assert.All(seen, s => Assert.StartsWith("BlobEndpoint GET /devstoreaccount1", s));
    }

    [Fact]
    public async Task TheApiRefusesATableWorkloadOnABlobOnlyTargetWith400AndTheSameLine()
    {
        var (target, proxies, seen) = await ProxiedAsync("BlobEndpoint");
        await using var proxy = proxies[0];
        var api = new RunsApi(await azurite.ClientHubAsync(), azurite.Results, new TargetCleaner([target]), TimeProvider.System, "http");

        var answer = await api.StartAsync($$"""{ "scenario": "blob-only", {{TableSpec}} }""", new Uri("http://127.0.0.1/"), null, default);

        Assert.Equal(400, answer.StatusCode);
        Assert.Equal("tableInsert needs a table endpoint, but --connection-string names none (it has BlobEndpoint only): add TableEndpoint=… or remove tableInsert from the spec; " +
            "nothing was started", (string?)answer.Body["message"]);
        Assert.Empty(seen);
    }
}
