using Azure.Storage.Blobs.Specialized;
using StorageBench.Benchmarks;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads.PageBlobUpload;

namespace StorageBench.Tests;

/// <summary>The page blob create (Put Blob, x-ms-blob-type PageBlob) and Put Page, as both drivers send them.</summary>
public partial class LeanWireTests
{
    [Theory]
    [InlineData(8L * 1024 * 1024, 0L, 4 * 1024 * 1024)]
    [InlineData(3L * 512, 1024L, 512)]   // the last page of a blob that is not a whole range
    public async Task PageBlobCreateAndPutPageAreTheSdksOnTheWire(long blobSize, long offset, int size)
    {
        await using var server = await FloorServer.StartAsync(capture: true);
        using var clients = StorageTarget.FromConnectionString(server.ConnectionString).CreateClients(new ClientSettings());
        var container = clients.Blobs.GetBlobContainerClient("wirecontainer");
        byte[] page = new byte[size];
        Random.Shared.NextBytes(page);
        const string blobName = "a1b2c3d4/s003-0000001";
        using var lean = new LeanPageUploads(clients.Lean, clients.BlobWire, container.Name, blobSize, workers: 1);

        var blob = container.GetPageBlobClient(blobName);
        await blob.CreateAsync(blobSize);
        await lean.CreateAsync(0, lean.Blob(blobName));
        await blob.UploadPagesAsync(new MemoryStream(page, 0, size), offset);
        await lean.UploadPagesAsync(0, lean.Blob(blobName), offset, page, size);

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
        // What the service reads: a page blob of the size, then the range the bytes go to.
        Assert.Equal("PageBlob", captured[1].Headers["x-ms-blob-type"]);
        Assert.Equal(blobSize.ToString(System.Globalization.CultureInfo.InvariantCulture), captured[1].Headers["x-ms-blob-content-length"]);
        Assert.Equal($"bytes={offset}-{offset + size - 1}", captured[3].Headers["x-ms-range"]);
        Assert.Equal("update", captured[3].Headers["x-ms-page-write"]);
        Assert.Equal(page, captured[3].Body);
        Assert.Equal(4, clients.BlobWire.Sent);
    }
}
