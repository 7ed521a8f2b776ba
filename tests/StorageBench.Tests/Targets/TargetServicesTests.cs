using CsCheck;
using StorageBench.Cli;
using StorageBench.Engine.Preflight;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;

namespace StorageBench.Tests;

/// <summary>
/// A target needs only what its workloads use: for any mix of endpoints given (connection string with some service
/// endpoints, none, UseDevelopmentStorage, or the endpoint settings alone or together) and any spec's workloads, the
/// refusal appears exactly when a needed endpoint is missing, in one line naming the workload, the service and the
/// setting, and no client is ever built for a service the target lacks.
/// </summary>
[Trait("Category", "Unit")]
public class TargetServicesTests
{
    private const string BlobOnly = "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + AzuriteServer.DevAccountKey +
        ";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;";

    private static readonly RunSpec Both = RunSpecParser.ParseOrThrow("""
        { "scenario": "s", "tableInsert": { "entityCount": 100 }, "blobUpload": { "blobCount": 1, "blobSizeBytes": 1024, "blockSizeBytes": 1024 } }
        """);

    /// <summary>How the target is given. Bits of <c>Endpoints</c>: 1 table, 2 blob, 4 queue (for connection strings; none: the account-name form).</summary>
    private sealed record Case(int Form, int Endpoints, int Workloads, int Accounts, bool ResultsInTarget)
    {
        public bool ConnectionString => Form is 0 or 1;

        public bool Table => Form switch
        {
            2 => true, // UseDevelopmentStorage=true
            3 => (Endpoints & 3) != 2, // endpoint settings: table given (both when neither bit is set)
            _ => (Endpoints & 7) == 0 || (Endpoints & 1) != 0,
        };

        public bool Blob => Form switch
        {
            2 => true,
            3 => (Endpoints & 3) != 1,
            _ => (Endpoints & 7) == 0 || (Endpoints & 2) != 0,
        };

        public bool NeedsTable => (Workloads & 1) != 0;

        public bool NeedsBlob => (Workloads & 2) != 0;

        public RunSpec Spec => Both with { TableInsert = NeedsTable ? Both.TableInsert : null, BlobUpload = NeedsBlob ? Both.BlobUpload : null };

        public string Setting => Form switch
        {
            0 => "--connection-string",
            1 or 2 => TargetSettings.TargetConnectionString,
            _ => NeedsTable && !Table ? TargetSettings.TargetTableEndpoints : TargetSettings.TargetBlobEndpoints,
        };

        public IReadOnlyList<StorageTarget> Targets()
        {
            if (Form == 0)
            {
                return [StorageTarget.Parse("--connection-string", ConnectionStringOf(Endpoints))];
            }
            var settings = new Dictionary<string, string>();
            if (Form is 1 or 2)
            {
                settings[TargetSettings.TargetConnectionString] = Form == 2 ? "UseDevelopmentStorage=true" : ConnectionStringOf(Endpoints);
            }
            else
            {
                string List(string service) => string.Join(",", Enumerable.Range(0, Accounts).Select(a => $"https://acct{a}.{service}.core.windows.net/"));
                if (Table)
                {
                    settings[TargetSettings.TargetTableEndpoints] = List("table");
                }
                if (Blob)
                {
                    settings[TargetSettings.TargetBlobEndpoints] = List("blob");
                }
            }
            return TargetSettings.Targets(settings.GetValueOrDefault);
        }

        private static string ConnectionStringOf(int endpoints) =>
            $"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={AzuriteServer.DevAccountKey};" +
            ((endpoints & 7) == 0 ? "EndpointSuffix=core.windows.net;" : "") +
            ((endpoints & 1) != 0 ? "TableEndpoint=http://127.0.0.1:10002/devstoreaccount1;" : "") +
            ((endpoints & 2) != 0 ? "BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;" : "") +
            ((endpoints & 4) != 0 ? "QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1;" : "");
    }

    private static readonly Gen<Case> Cases = Gen.Select(Gen.Int[0, 3], Gen.Int[0, 7], Gen.Int[1, 3], Gen.Int[1, 3], Gen.Bool,
        (form, endpoints, workloads, accounts, results) => new Case(form, endpoints, workloads, accounts, results));

    [Fact]
    public void TheRefusalAppearsIffANeededEndpointIsMissingAndNamesTheWorkloadTheServiceAndTheSetting()
    {
        var fullResults = StorageTarget.Parse("results", "UseDevelopmentStorage=true");
        Cases.Sample(c =>
        {
            var targets = c.Targets();
            var results = c.ResultsInTarget ? targets[0] : fullResults;
            string? refusal = TargetServices.Refusal(c.Spec, targets, results);

            string? workload = c.NeedsTable && !c.Table ? "tableInsert" : c.NeedsBlob && !c.Blob ? "blobUpload" : null;
            if (workload is not null)
            {
                Assert.NotNull(refusal);
                Assert.StartsWith($"{workload} needs a {(workload == "tableInsert" ? "table" : "blob")} endpoint, but ", refusal);
                Assert.Contains(c.Setting, refusal);
                Assert.Contains($"remove {workload} from the spec", refusal);
            }
            else if (c.ResultsInTarget && !c.Table)
            {
                // Only the results table (in the target by default) needs what the target lacks: that is named instead.
                Assert.NotNull(refusal);
                Assert.StartsWith("the results table needs a table endpoint, but ", refusal);
                Assert.Contains(TargetSettings.ResultsConnectionString, refusal);
            }
            else
            {
                Assert.Null(refusal);
            }
            if (refusal is not null)
            {
                Assert.DoesNotContain('\n', refusal);
                Assert.EndsWith("; nothing was started", refusal);
            }

            // No client for a missing service: using one is an error naming the setting, never a request to a made-up host.
            foreach (var target in targets)
            {
                Assert.Equal((c.Table, c.Blob), (target.Has(TargetService.Table), target.Has(TargetService.Blob)));
                using var clients = target.CreateClients(new());
                Assert.Equal((c.Table, c.Blob), (clients.Has(TargetService.Table), clients.Has(TargetService.Blob)));
                if (!c.Table)
                {
                    Assert.Contains("needs a table endpoint", Assert.Throws<TargetServiceMissingException>(() => clients.Tables).Message);
                }
                if (!c.Blob)
                {
                    Assert.Contains("needs a blob endpoint", Assert.Throws<TargetServiceMissingException>(() => clients.Blobs).Message);
                }
            }
        }, iter: 2000);
    }

    [Fact]
    public void ABlobOnlyConnectionStringIsRefusedForATableWorkloadInTheIssuesWords()
    {
        var target = StorageTarget.Parse("--connection-string", BlobOnly);
        var full = StorageTarget.Parse("results", "UseDevelopmentStorage=true");
        Assert.Equal(
            "tableInsert needs a table endpoint, but --connection-string names none (it has BlobEndpoint only): add TableEndpoint=… or remove tableInsert from the spec; nothing was started",
            TargetServices.Refusal(Both, [target], full));
        Assert.Null(TargetServices.Refusal(Both with { TableInsert = null }, [target], full));

        var blobs = TargetSettings.Targets(name => name == TargetSettings.TargetBlobEndpoints ? "https://a.blob.core.windows.net/" : null);
        Assert.Equal(
            "tableInsert needs a table endpoint, but STORAGEBENCH_TARGET_TABLE_ENDPOINTS is not set (STORAGEBENCH_TARGET_BLOB_ENDPOINTS is): set STORAGEBENCH_TARGET_TABLE_ENDPOINTS, " +
            "one endpoint per account in the same order, or remove tableInsert from the spec; nothing was started",
            TargetServices.Refusal(Both, blobs, full));
    }

    [Fact]
    public async Task PreflightRefusesAMissingEndpointWithoutARequestAndTheCliExitsTwoInOneLine()
    {
        // Nothing listens on these ports: a refusal that sent a request would say "Connection refused" instead.
        var preflight = new StoragePreflight([StorageTarget.Parse("--connection-string", BlobOnly)], StorageTarget.Parse("results", "UseDevelopmentStorage=true"));
        var checking = System.Diagnostics.Stopwatch.StartNew();
        var refused = await preflight.CheckAsync(Both, default);
        Assert.True(checking.Elapsed < TimeSpan.FromSeconds(2), $"took {checking.Elapsed}");
        Assert.NotNull(refused);
        Assert.True(refused.Refused);
        Assert.StartsWith("tableInsert needs a table endpoint", refused.Message);
        Assert.Equal(0, preflight.TargetRequests);

        string dir = Directory.CreateTempSubdirectory("sb-services").FullName;
        string spec = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(spec, """{ "scenario": "s", "tableInsert": { "entityCount": 100 } }""");
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        var clock = System.Diagnostics.Stopwatch.StartNew();
        int exit = await CliApp.RunAsync(["run", "--spec", spec, "--connection-string", BlobOnly, "--out", dir], stdout, stderr, default);
        // Decided from the settings alone: the time is the CLI's own start (1.2-1.3 s for the published binary at load 15 on 2 cores);
        // the bound leaves room for this test's neighbours, as PreflightTests does.
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(10), $"took {clock.Elapsed}");
        Assert.Equal(CliApp.UsageError, exit);
        Assert.Equal(
            "error: tableInsert needs a table endpoint, but --connection-string names none (it has BlobEndpoint only): add TableEndpoint=… or remove tableInsert from the spec; nothing was started",
            Assert.Single(stderr.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries)));
        Assert.DoesNotContain("started (scenario", stdout.ToString());
        Assert.False(File.Exists(Path.Combine(dir, "summary.json")));
    }

    [Fact]
    public async Task AResultsCommandOnABlobOnlyAccountIsOneLineAndExitTwoNotAStackTrace()
    {
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        int exit = await CliApp.RunAsync(["runs", "--connection-string", BlobOnly], stdout, stderr, default);
        Assert.Equal(CliApp.UsageError, exit);
        Assert.Equal("error: this needs a table endpoint, but --connection-string names none (it has BlobEndpoint only): add TableEndpoint=… or use an account with tables",
            Assert.Single(stderr.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries)));
    }
}
