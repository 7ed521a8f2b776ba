using Microsoft.AspNetCore.Http;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads.BlobUpload;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// A blob verification whose reads of listed blobs are answered 404 says how many were not found, not a
/// NullReferenceException's text ("Object reference not set to an instance of an object.").
/// </summary>
[Trait("Category", "Azurite")]
[Collection(AzuriteCollection.Name)]
public class VerificationNotFoundTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    [Fact]
    public async Task BlobsListedButNotFoundWhenReadAreCountedByName()
    {
        var step = TestStep.New();
        await azurite.Blobs.CreateBlobContainerAsync(step.ContainerName);
        var spec = new BlobUploadSpec { BlobCount = 4, BlobSizeBytes = 4096, BlockSizeBytes = 1024, ParallelBlocks = 2, VerifyContent = true };
        var results = await Task.WhenAll(step.Blob(spec, new ClientSettings { PrimeRounds = 0 })
            .Select(p => BlobUploadSlice.RunAsync(p, azurite.Target, TimeProvider.System, default)));
        Assert.Equal(4, results.Sum(r => r.Objects));

        // Listing goes through; every read of a blob (GET or HEAD on a blob's own path) is answered 404.
        static bool ReadsABlob(HttpRequest r) => (HttpMethods.IsGet(r.Method) || HttpMethods.IsHead(r.Method)) && !r.Query.ContainsKey("comp");
        var (proxy, target) = await FaultProxy.InFrontOfAsync(azurite.ConnectionString, "BlobEndpoint", ReadsABlob, _ => Fault.NotFound);
        await using var _ = proxy;

        var verified = await BlobUploadGroundTruth.VerifyBlobsAsync([target], step.ContainerName, [.. results.Select(r => r.AttemptId)], 4, spec.BlobSizeBytes,
            results.ToDictionary(r => r.AttemptId, r => r.ContentMd5!), default);
        output.WriteLine(verified.ToString());

        Assert.False(verified.Matched);
        Assert.Contains("4 of 4 blobs not found when read back", verified.Detail);
        Assert.DoesNotContain("Object reference", verified.Detail);
    }
}
