namespace StorageBench.Tests;

/// <summary>
/// The workloads added as rooms run from both entry points — the runs API (the code the Function App's HTTP function
/// calls) and `storagebench run` — on the real Durable engine and Azurite, on each driver: one step writes page blobs,
/// seeds and reads entities, and seeds and downloads blobs, each verified against storage, with nothing left behind.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(AzuriteCollection.Name)]
public class NewWorkloadsEndToEndTests(AzuriteFixture azurite)
{
    [Theory]
    [InlineData("api", "lean")]
    [InlineData("api", "sdk")]
    [InlineData("cli", "lean")]
    [InlineData("cli", "sdk")]
    public async Task EveryNewWorkloadRunsVerifiedFromTheApiAndTheCliOnEachDriver(string entry, string driver)
    {
        string spec = $$"""
            { "scenario": "rooms-api", "startDelaySeconds": 1, "client": { "driver": "{{driver}}", "primeRounds": 1 },
              "pageBlobUpload": { "blobCount": 2, "blobSizeBytes": 1048576, "pageRangeBytes": 262144, "parallelRanges": 2, "verifyContent": true },
              "tableRead": { "entityCount": 60, "entitySizeBytes": 256, "partitionCount": 2, "operation": "query", "queryEntities": 20, "readCount": 20, "slices": 2 },
              "blobDownload": { "blobCount": 2, "blobSizeBytes": 524288, "rangeSizeBytes": 131072, "parallelRanges": 2, "downloadCount": 4, "verifyContent": true } }
            """;

        var result = await EntryPoints.RunAsync(azurite, entry, spec);
        string id = (string)result["runId"]!;
        Assert.True((string?)result["status"] == "Completed", result["errors"]?.ToJsonString());
        var workloads = result["workloads"]!.AsArray();
        Assert.Equal(["pageBlobUpload", "tableRead", "blobDownload"], workloads.Select(w => (string?)w!["workload"]));
        Assert.All(workloads, w => Assert.True((bool)w!["verified"]!["matched"]!, w["verified"]!.ToJsonString()));
        Assert.All(workloads, w => Assert.Equal(0, (double)w!["unstoredShare"]!));
        Assert.Equal(20 * 20, (long)workloads[1]!["entities"]!);   // 20 queries of 20 entities, each checked against the seed
        Assert.Equal(4 * 524288L, (long)workloads[2]!["bytes"]!);  // 4 whole downloads, from their ranges
        Assert.True(result["targetSideRequests"]!["seed"]!.GetValue<long>() > 0);
        Assert.Empty(await azurite.LeftoversOfAsync(id));
    }
}
