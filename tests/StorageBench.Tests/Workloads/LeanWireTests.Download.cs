using Azure;
using Azure.Storage.Blobs.Models;
using StorageBench.Benchmarks;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads.BlobDownload;

namespace StorageBench.Tests;

public partial class LeanWireTests
{
    /// <summary>blobDownload's Get Blob, whole and of a range, as the SDK's BlobClient.DownloadStreamingAsync sends it.</summary>
    [Theory]
    [InlineData(0, 0)]            // the whole blob: no x-ms-range
    [InlineData(4096, 1000)]      // a range in the middle
    public async Task GetBlobIsTheSdksOnTheWire(long offset, long length)
    {
        await using var server = await FloorServer.StartAsync(capture: true);
        using var clients = StorageTarget.FromConnectionString(server.ConnectionString).CreateClients(new ClientSettings());
        var container = clients.Blobs.GetBlobContainerClient("wirecontainer");
        string blobName = BlobDownloadRoom.SeedBlobName(3);
        await container.GetBlobClient(blobName).UploadAsync(new BinaryData(new byte[10_000]));
        server.Captured.Clear();
        using var lean = new LeanBlobDownloads(clients.Lean, clients.BlobWire, container.Name, workers: 1);
        byte[] buffer = new byte[4096];
        long sent = clients.BlobWire.Sent;

        var options = length > 0 ? new BlobDownloadOptions { Range = new HttpRange(offset, length) } : null;
        using (var sdk = (await container.GetBlobClient(blobName).DownloadStreamingAsync(options)).Value)
        {
            await sdk.Content.CopyToAsync(Stream.Null);
        }
        var answer = await lean.GetAsync(0, lean.Blob(blobName), offset, length, buffer, null);

        var (fromSdk, fromLean) = Pair(server);
        AssertSameRequest(fromSdk, fromLean);
        Assert.Equal("GET", fromLean.Method);
        Assert.Equal(length > 0, fromLean.Headers.ContainsKey("x-ms-range"));
        Assert.Empty(fromLean.Body);
        Assert.StartsWith("SharedKey devstoreaccount1:", fromLean.Headers["Authorization"]);
        foreach (var request in new[] { fromSdk, fromLean })
        {
            Assert.Equal(SharedKey(request), request.Headers["Authorization"]);
        }
        Assert.Equal(length > 0 ? length : 10_000, answer.Bytes);
        Assert.Equal(2, clients.BlobWire.Sent - sent);
    }
}
