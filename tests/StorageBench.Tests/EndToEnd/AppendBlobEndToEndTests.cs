namespace StorageBench.Tests;

/// <summary>
/// The sixth room, appendBlobUpload, from both entry points — the runs API and `storagebench run` — on the real Durable
/// engine and Azurite, on each driver: append blobs grown by Append Block, verified by length, committed block count and
/// MD5, priced, with nothing left behind.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(AzuriteCollection.Name)]
public class AppendBlobEndToEndTests(AzuriteFixture azurite)
{
    [Theory]
    [InlineData("api", "lean")]
    [InlineData("api", "sdk")]
    [InlineData("cli", "lean")]
    [InlineData("cli", "sdk")]
    public async Task AppendBlobsRunVerifiedFromTheApiAndTheCliOnEachDriver(string entry, string driver)
    {
        string spec = $$"""
            { "scenario": "append-{{entry}}", "startDelaySeconds": 1, "client": { "driver": "{{driver}}", "primeRounds": 1 },
              "appendBlobUpload": { "blobCount": 4, "blobSizeBytes": 300000, "appendSizeBytes": 65536, "parallelBlobs": 2, "slices": 2, "verifyContent": true } }
            """;

        var result = await EntryPoints.RunAsync(azurite, entry, spec);
        string id = (string)result["runId"]!;
        Assert.True((string?)result["status"] == "Completed", result["errors"]?.ToJsonString());
        var append = Assert.Single(result["workloads"]!.AsArray())!;
        Assert.Equal("appendBlobUpload", (string?)append["workload"]);
        Assert.True((bool)append["verified"]!["matched"]!, append["verified"]!.ToJsonString());
        Assert.Contains("0 with a committed block count other than 5", (string)append["verified"]!["detail"]!);
        Assert.Equal(4 * 300000L, (long)append["bytes"]!);   // goodput: the four whole blobs
        // Five appends per blob (four of 65,536 bytes and the rest), each a timed request; the creates counted apart.
        Assert.Equal(20, (long)append["latencyMs"]!["samples"]!);
        var lines = append["transactions"]!.AsArray().ToDictionary(l => (string)l!["kind"]!, l => (long)l!["requests"]!);
        Assert.Equal((20L, 4L), (lines["Append Block"], lines["Put Blob (append blob create)"]));
        Assert.Equal(4L, lines["Get Blob Properties"]);
        Assert.Empty(await azurite.LeftoversOfAsync(id));
    }
}
