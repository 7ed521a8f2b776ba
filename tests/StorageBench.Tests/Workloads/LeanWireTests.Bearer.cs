using Azure.Core;
using Azure.Data.Tables;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Specialized;
using StorageBench.Benchmarks;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.TableInsert;
using StorageBench.Engine.Workloads;
using StorageBench.Engine.Workloads.Lean;

namespace StorageBench.Tests;

/// <summary>
/// The lean driver's managed-identity path: with a token credential (no key, no SAS) every request carries
/// "Authorization: Bearer &lt;token&gt;" for the storage scope, the token is cached while valid and fetched
/// again once it is within 5 minutes of expiry, as Azure.Core's BearerTokenAuthenticationPolicy does.
/// </summary>
/// <remarks>
/// The SDK clients refuse a token credential over plain http (the floor server is http only): the blob
/// client at construction, the table client's bearer policy on send (pinned by
/// <see cref="TheSdkRefusesBearerTokensOverHttp"/>). So the SDK side here is the documented policy — the
/// header is exactly "Bearer " + AccessToken.Token, scope https://storage.azure.com/.default, refresh
/// 5 minutes before ExpiresOn — and everything else on the wire is compared with the SDK's own requests
/// (sent with shared key), since the auth policy only sets Authorization and the other headers
/// (x-ms-version, x-ms-date, DataServiceVersion, …) are what OAuth for tables needs too.
/// </remarks>
public partial class LeanWireTests
{
    private const string StorageScope = "https://storage.azure.com/.default";

    [Fact]
    public async Task BearerTokenIsTheStorageScopesCachedAndRefreshedFiveMinutesBeforeExpiry()
    {
        await using var server = await FloorServer.StartAsync(capture: true);
        var endpoint = new Uri(server.Address, "devstoreaccount1");

        // The SDK's requests for the four operations, as the reference for every header but Authorization.
        using (var clients = StorageTarget.FromConnectionString(server.ConnectionString).CreateClients(new ClientSettings()))
        {
            var payload = new EntityPayload(1024);
            var table = clients.Tables.GetTableClient("wiretable");
            foreach (int size in new[] { 100, 1 })
            {
                using var sdk = new SdkTableInserts(table, payload, size);
                sdk.Prepare("p00007", "a1b2c3d4", 3, 123_456, size);
                await sdk.SendAsync();
            }
            var blob = clients.Blobs.GetBlobContainerClient("wirecontainer").GetBlockBlobClient("a1b2c3d4/s003-0000001");
            await blob.StageBlockAsync(BlockIds[1], new MemoryStream(new byte[7_000]));
            await blob.CommitBlockListAsync(BlockIds);
        }

        // First token: already within 5 minutes of expiry, so the next request must fetch again.
        var credential = new CountingTestCredential { Token = "token-A", ExpiresOn = DateTimeOffset.UtcNow.AddMinutes(4) };
        // A loopback endpoint is an emulator target: both drivers send it the emulator's blob version, as StorageClients does.
        var account = new LeanAccount("devstoreaccount1", endpoint, endpoint, Key: null, Sas: null) { BlobVersion = EmulatorVersions.Blob };
        using var transport = new LeanTransport(new ClientSettings(), account, credential);
        Assert.True(transport.UsesToken);
        var tableWire = new WireCounter();
        var blobWire = new WireCounter();
        var leanPayload = new EntityPayload(1024);
        using var batch = new LeanTableInserts(transport, tableWire, "wiretable", leanPayload, 100);
        using var single = new LeanTableInserts(transport, tableWire, "wiretable", leanPayload, 1);
        using var blocks = new LeanBlockUploads(transport, blobWire, "wirecontainer", BlockIds, workers: 1);
        var leanBlob = blocks.Blob("a1b2c3d4/s003-0000001");

        batch.Prepare("p00007", "a1b2c3d4", 3, 123_456, 100);
        await batch.SendAsync();
        Assert.Equal(1, credential.Calls);

        // The second token is valid for an hour: fetched once (token-A was inside the 5-minute window),
        // then reused by every later request while valid.
        credential.Token = "token-B";
        credential.ExpiresOn = DateTimeOffset.UtcNow.AddHours(1);
        single.Prepare("p00007", "a1b2c3d4", 3, 123_456, 1);
        await single.SendAsync();
        Assert.Equal(2, credential.Calls);
        await blocks.StageBlockAsync(0, leanBlob, 1, new byte[7_000], 7_000);
        await blocks.CommitBlockListAsync(leanBlob);
        for (int i = 0; i < 5; i++)
        {
            batch.Prepare("p00007", "a1b2c3d4", 3, 200 + i, 100);
            await batch.SendAsync();
            single.Prepare("p00007", "a1b2c3d4", 3, 300 + i, 1);
            await single.SendAsync();
            await blocks.StageBlockAsync(0, leanBlob, 0, new byte[1_000], 1_000);
        }
        await blocks.CommitBlockListAsync(leanBlob);
        Assert.Equal(2, credential.Calls);
        Assert.All(credential.Scopes, scopes => Assert.Equal(new[] { StorageScope }, scopes));
        Assert.Equal(2, credential.Scopes.Count);

        var captured = server.Captured.ToArray();
        Assert.Equal(4 + 4 + 16, captured.Length);
        Assert.Equal(12, tableWire.Sent);
        Assert.Equal(8, blobWire.Sent);
        var lean = captured[4..];
        Assert.Equal("Bearer token-A", lean[0].Headers["Authorization"]);
        Assert.All(lean[1..], request => Assert.Equal("Bearer token-B", request.Headers["Authorization"]));
        // Batch, single insert, Put Block, Put Block List: the SDK's requests in all but the auth header's value.
        for (int i = 0; i < 4; i++)
        {
            AssertSameRequest(captured[i], lean[i]);
            Assert.Equal(captured[i].Headers["x-ms-version"], lean[i].Headers["x-ms-version"]);
        }
    }

    /// <summary>Why the SDK side above is its documented policy and not its captured request: it will not send a bearer token over http.</summary>
    [Fact]
    public async Task TheSdkRefusesBearerTokensOverHttp()
    {
        await using var server = await FloorServer.StartAsync(capture: true);
        var endpoint = new Uri(server.Address, "devstoreaccount1");
        var credential = new CountingTestCredential { Token = "token-A", ExpiresOn = DateTimeOffset.UtcNow.AddHours(1) };

        var blobs = Assert.ThrowsAny<Exception>(() => new BlobServiceClient(endpoint, credential));
        Assert.Contains("HTTPS", blobs.Message, StringComparison.OrdinalIgnoreCase);
        var table = new TableServiceClient(endpoint, credential).GetTableClient("wiretable");
        var tables = await Assert.ThrowsAnyAsync<Exception>(() => table.AddEntityAsync(new TableEntity("p", "r")));
        Assert.Contains("https", tables.Message, StringComparison.OrdinalIgnoreCase);
        Assert.Empty(server.Captured);
    }

    private static readonly string[] BlockIds = ["YmxvY2s+LzAwMA==", "YmxvY2s+LzAwMQ=="];

    /// <summary>A token credential returning <see cref="Token"/> valid until <see cref="ExpiresOn"/>, counting its calls and the scopes asked for.</summary>
    private sealed class CountingTestCredential : TokenCredential
    {
        private int _calls;

        public string Token { get; set; } = "";

        public DateTimeOffset ExpiresOn { get; set; }

        public int Calls => Volatile.Read(ref _calls);

        public System.Collections.Concurrent.ConcurrentQueue<string[]> Scopes { get; } = new();

        public override AccessToken GetToken(TokenRequestContext requestContext, CancellationToken cancellationToken)
        {
            Interlocked.Increment(ref _calls);
            Scopes.Enqueue(requestContext.Scopes);
            return new AccessToken(Token, ExpiresOn);
        }

        public override ValueTask<AccessToken> GetTokenAsync(TokenRequestContext requestContext, CancellationToken cancellationToken) =>
            new(GetToken(requestContext, cancellationToken));
    }
}
