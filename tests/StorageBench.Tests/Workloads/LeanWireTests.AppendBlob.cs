using Azure.Storage.Blobs.Specialized;
using StorageBench.Benchmarks;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads.AppendBlobUpload;

namespace StorageBench.Tests;

/// <summary>The append blob create (Put Blob, x-ms-blob-type AppendBlob) and Append Block, as both drivers send them.</summary>
public partial class LeanWireTests
{
    [Theory]
    [InlineData(4 * 1024 * 1024)]
    [InlineData(1000)]
    public async Task AppendBlobCreateAndAppendBlockAreTheSdksOnTheWire(int size)
    {
        await using var server = await FloorServer.StartAsync(capture: true);
        using var clients = StorageTarget.FromConnectionString(server.ConnectionString).CreateClients(new ClientSettings());
        var container = clients.Blobs.GetBlobContainerClient("wirecontainer");
        byte[] buffer = new byte[size];
        Random.Shared.NextBytes(buffer);
        const string blobName = "a1b2c3d4/s003-0000001";
        using var lean = new LeanAppendBlocks(clients.Lean, clients.BlobWire, container.Name, loops: 1);

        var blob = container.GetAppendBlobClient(blobName);
        await blob.CreateAsync();
        await lean.CreateAsync(0, lean.Blob(blobName));
        await blob.AppendBlockAsync(new MemoryStream(buffer, 0, size));
        await lean.AppendAsync(0, lean.Blob(blobName), buffer, size);

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
        Assert.Equal("AppendBlob", captured[1].Headers["x-ms-blob-type"]);
        Assert.Equal(buffer, captured[3].Body);
        Assert.Equal(4, clients.BlobWire.Sent);
    }
}
