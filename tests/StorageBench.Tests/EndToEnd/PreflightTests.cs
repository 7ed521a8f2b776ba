using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Preflight;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// Before a run is accepted, every account it would use answers one cheap authenticated request: a wrong key or
/// an account that is not there is one line naming the account, the endpoint, the cause and a hint, within 10 s,
/// from the CLI (exit 1) and the API (400 for a refusal, 503 for no answer), and nothing is created.
/// </summary>
/// <remarks>An Azurite of its own, so the snapshot is everything in it.</remarks>
[Trait("Category", "EndToEnd")]
[System.Diagnostics.CodeAnalysis.SuppressMessage("Reliability", "CA1001", Justification = "xUnit ends the listener through IAsyncLifetime.DisposeAsync.")]
public class PreflightTests(AzuriteFixture azurite, ITestOutputHelper output) : IClassFixture<AzuriteFixture>, IAsyncLifetime
{
    private const string Spec = """
        { "scenario": "preflight", "startDelaySeconds": 0, "tableInsert": { "entityCount": 100, "batchSize": 50 },
          "blobUpload": { "blobCount": 1, "blobSizeBytes": 1024, "blockSizeBytes": 1024 } }
        """;

    /// <summary>A valid-looking key (base64, 64 bytes) that is not the account's.</summary>
    private static readonly string WrongKey = "Zzz9" + AzuriteServer.DevAccountKey[4..];

    private readonly TcpListener _silent = new(IPAddress.Loopback, 0);
    private readonly List<Socket> _held = [];
    private Task? _accepting;

    public Task InitializeAsync()
    {
        // Accepts connections and never answers: an endpoint that hangs.
        _silent.Start();
        _accepting = Task.Run(async () =>
        {
            while (true)
            {
                var socket = await _silent.AcceptSocketAsync();
                lock (_held)
                {
                    _held.Add(socket);
                }
            }
        });
        return Task.CompletedTask;
    }

    public Task DisposeAsync()
    {
        _silent.Stop();
        lock (_held)
        {
            _held.ForEach(s => s.Dispose());
        }
        return Task.CompletedTask;
    }

    public static TheoryData<string, int, string, string> Faults => new()
    {
        // fault, API status, cause, hint
        { "wrong key", 400, "403 AuthorizationFailure", "check the account key or SAS in the connection string" },
        { "closed port", 503, "Connection refused", "nothing listens there" },
        { "silent listener", 503, "no answer within 5 s", "check the endpoint, the network and any firewall" },
    };

    [Theory]
    [MemberData(nameof(Faults))]
    public async Task TheCliSaysOneLineWithAHintExitsOneWithinTenSecondsAndCreatesNothing(string fault, int _, string cause, string hint)
    {
        var before = await SnapshotAsync();
        string dir = Directory.CreateTempSubdirectory("sb-preflight").FullName;
        string spec = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(spec, Spec);
        // The key from a file, as docs/cli.md says: on the command line it would add a warning line.
        string account = Path.Combine(dir, "account.cs");
        await File.WriteAllTextAsync(account, ConnectionString(fault));
        var (stdout, stderr) = (new StringWriter(), new StringWriter());

        var clock = Stopwatch.StartNew();
        int exit = await CliApp.RunAsync(["run", "--spec", spec, "--connection-string-file", account, "--out", dir], stdout, stderr, default);
        var took = clock.Elapsed;
        output.WriteLine($"{fault}: exit {exit} after {took.TotalSeconds:0.0} s: {stderr}");

        Assert.Equal(1, exit);
        string line = Assert.Single(stderr.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith($"error: storage account devstoreaccount1, table endpoint http://127.0.0.1:{Port(fault)}/devstoreaccount1: {cause}: ", line);
        Assert.Contains(hint, line);
        Assert.EndsWith("; nothing was started", line);
        Assert.True(took < TimeSpan.FromSeconds(10), $"took {took}");
        Assert.DoesNotContain("started (scenario", stdout.ToString());
        Assert.False(File.Exists(Path.Combine(dir, "summary.json")));
        Assert.Equal(before, await SnapshotAsync());
    }

    [Theory]
    [MemberData(nameof(Faults))]
    public async Task TheApiAnswers400Or503WithTheSameLineWithinTenSecondsAndCreatesNothing(string fault, int status, string cause, string hint)
    {
        var target = StorageTarget.Parse("test", ConnectionString(fault));
        using var results = new ResultsTableStore(target);
        // The API's task hub (in this Azurite) exists before anything is compared: its queues and tables are not the run's doing.
        var hub = await azurite.ClientHubAsync();
        var before = await SnapshotAsync();
        var api = new RunsApi(hub, results, new TargetCleaner([target]), TimeProvider.System, "http");
        await using var server = await LocalApiServer.StartAsync(api, port: 0, default);
        using var http = new HttpClient { BaseAddress = server.Address };

        var clock = Stopwatch.StartNew();
        var response = await http.PostAsync("api/runs", new StringContent(Spec, System.Text.Encoding.UTF8, "application/json"));
        var took = clock.Elapsed;
        string body = await response.Content.ReadAsStringAsync();
        output.WriteLine($"{fault}: {(int)response.StatusCode} after {took.TotalSeconds:0.0} s: {body}");

        Assert.Equal(status, (int)response.StatusCode);
        var json = System.Text.Json.Nodes.JsonNode.Parse(body)!;
        Assert.Equal(status, (int)json["status"]!);
        string message = (string)json["message"]!;
        Assert.StartsWith($"storage account devstoreaccount1, table endpoint http://127.0.0.1:{Port(fault)}/devstoreaccount1: {cause}: ", message);
        Assert.Contains(hint, message);
        Assert.Empty(json["errors"]!.AsArray());
        Assert.True(took < TimeSpan.FromSeconds(10), $"took {took}");
        Assert.Equal(before, await SnapshotAsync());
    }

    /// <summary>A dead control-plane account is named as the control plane, never taken for the account under test.</summary>
    [Fact]
    public async Task ADeadHubConnectionStringIsNamedAsTheControlPlaneNotTheTarget()
    {
        string dir = Directory.CreateTempSubdirectory("sb-preflight").FullName;
        string spec = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(spec, Spec);
        var (stdout, stderr) = (new StringWriter(), new StringWriter());

        int exit = await CliApp.RunAsync(["run", "--spec", spec, "--connection-string", azurite.ConnectionString, "--hub-connection-string", ConnectionString("closed port"),
            "--out", dir], stdout, stderr, default);
        output.WriteLine(stderr.ToString());

        Assert.Equal(1, exit);
        string line = Assert.Single(stderr.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("error: the control plane (task hubs, cancel signals, progress, results; --hub-connection-string), not the target: storage account devstoreaccount1, " +
            $"table endpoint http://127.0.0.1:{Port("closed port")}/devstoreaccount1: Connection refused: ", line);
        Assert.DoesNotContain("started (scenario", stdout.ToString());
    }

    [Fact]
    public async Task AReachableAccountWithTheRightKeyPassesAndAWrongResultsStoreIsNamed()
    {
        var spec = RunSpecParser.ParseOrThrow(Spec);
        Assert.Null(await new StoragePreflight([azurite.Target], azurite.Target).CheckAsync(spec, default));

        // The target is fine, the results table's account refuses the key: that endpoint is the one named.
        var results = StorageTarget.Parse("results", ConnectionString("wrong key"));
        var refused = await new StoragePreflight([azurite.Target], results).CheckAsync(spec, default);
        Assert.NotNull(refused);
        Assert.True(refused.Refused);
        Assert.Equal(("table", "403 AuthorizationFailure"), (refused.Service, refused.Cause));

        // A blob-only spec checks the blob endpoint (and the results table), not the target's table endpoint.
        var blobOnly = RunSpecParser.ParseOrThrow("""{ "scenario": "preflight", "blobUpload": { "blobCount": 1, "blobSizeBytes": 1024, "blockSizeBytes": 1024 } }""");
        var closed = StorageTarget.Parse("target", ConnectionString("closed port").Replace($"TableEndpoint=http://127.0.0.1:{Port("closed port")}", "TableEndpoint=" + TableEndpoint()));
        var blob = await new StoragePreflight([closed], azurite.Target).CheckAsync(blobOnly, default);
        Assert.Equal(("blob", false), (blob?.Service, blob?.Refused));
    }

    private int _closedPort;

    private int Port(string fault) => fault switch
    {
        "wrong key" => new Uri(TableEndpoint()).Port,
        "closed port" => _closedPort == 0 ? _closedPort = ClosedPort() : _closedPort,
        _ => ((IPEndPoint)_silent.LocalEndpoint).Port,
    };

    private string TableEndpoint() => azurite.ConnectionString.Split(';').Single(p => p.StartsWith("TableEndpoint=", StringComparison.Ordinal))["TableEndpoint=".Length..].TrimEnd('/').Replace("/devstoreaccount1", "");

    /// <summary>The fault's connection string: Azurite with a wrong key, or both endpoints on a closed or a silent port.</summary>
    private string ConnectionString(string fault) => fault == "wrong key"
        ? azurite.ConnectionString.Replace(AzuriteServer.DevAccountKey, WrongKey)
        : $"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={AzuriteServer.DevAccountKey};" +
          $"BlobEndpoint=http://127.0.0.1:{Port(fault)}/devstoreaccount1;TableEndpoint=http://127.0.0.1:{Port(fault)}/devstoreaccount1;";

    /// <summary>A loopback port nothing listens on (bound, then released).</summary>
    private static int ClosedPort()
    {
        var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int port = ((IPEndPoint)listener.LocalEndpoint).Port;
        listener.Stop();
        return port;
    }

    private async Task<string> SnapshotAsync()
    {
        var tables = (await azurite.TableNamesAsync()).Order().ToList();
        var rows = new List<string>();
        foreach (string table in tables)
        {
            await foreach (var row in azurite.Tables.GetTableClient(table).QueryAsync<Azure.Data.Tables.TableEntity>(select: ["PartitionKey", "RowKey"]))
            {
                rows.Add($"{table}/{row.PartitionKey}/{row.RowKey}");
            }
        }
        return $"tables {string.Join(",", tables)}; containers {string.Join(",", (await azurite.ContainerNamesAsync()).Order())}; rows {string.Join(",", rows)}";
    }
}

/// <summary>
/// An endpoint that answers, but not as storage does (a web server's 200 "hello" or 404 page): one line naming the account, the service,
/// the endpoint and what to check, refused (the API's 400), never a JSON or XML parser's message.
/// </summary>
[Trait("Category", "Unit")]
public class PreflightNotStorageTests
{
    [Theory]
    [InlineData("table", 200, """{ "scenario": "web", "tableInsert": { "entityCount": 100, "batchSize": 50 } }""")]
    [InlineData("blob", 200, """{ "scenario": "web", "blobUpload": { "blobCount": 1, "blobSizeBytes": 1024, "blockSizeBytes": 1024 } }""")]
    [InlineData("table", 404, """{ "scenario": "web", "tableInsert": { "entityCount": 100, "batchSize": 50 } }""")]
    [InlineData("blob", 404, """{ "scenario": "web", "blobUpload": { "blobCount": 1, "blobSizeBytes": 1024, "blockSizeBytes": 1024 } }""")]
    public async Task AWebServerAnswering200HelloOr404IsNamedAsNotStorageInOneLine(string service, int status, string spec)
    {
        // 404: what a plain HTTP server (python -m http.server, nginx) answers for a path it does not serve.
        await using var web = await LoopbackServer.StartAsync(0, app => Microsoft.AspNetCore.Builder.RunExtensions.Run(app, context =>
        {
            context.Response.StatusCode = status;
            return Microsoft.AspNetCore.Http.HttpResponseWritingExtensions.WriteAsync(context.Response, status == 200 ? "hello" : "<html><body>Not Found</body></html>");
        }));
        string endpoint = $"http://127.0.0.1:{web.Address.Port}/devstoreaccount1";
        var target = StorageTarget.Parse("web", $"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={AzuriteServer.DevAccountKey};TableEndpoint={endpoint};BlobEndpoint={endpoint};");

        var failure = await new StoragePreflight([target], results: null).CheckAsync(RunSpecParser.Parse(spec).Spec!, default);

        Assert.NotNull(failure);
        Assert.True(failure.Refused);
        Assert.Equal($"storage account devstoreaccount1, {service} endpoint {endpoint}: it did not answer as Azure Storage does (an answer that is not the service's JSON or XML): " +
            "check that the endpoint is a storage account's or Azurite's, not another server's; nothing was started", failure.Message);
    }
}
