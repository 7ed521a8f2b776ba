using System.Text;
using System.Text.Json.Nodes;
using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// Bad input gets a clear error and changes nothing: every case below is rejected by the CLI (exit 2)
/// and by the runs API (400) naming the field, the value and the rule, and no table, container or
/// result row appears.
/// </summary>
/// <remarks>An Azurite of its own, so the snapshot is everything in it: no other test writes there.</remarks>
[Trait("Category", "Azurite")]
public class BadInputTests(AzuriteFixture azurite) : IClassFixture<AzuriteFixture>
{
    /// <summary>A spec, the field its error must name, and a fragment of the rule.</summary>
    public static TheoryData<string, string, string> Specs => new()
    {
        { """{ "scenario": "", "tableInsert": {} }""", "scenario", "must be 1-63 letters" },
        { """{ "scenario": "no spaces!", "tableInsert": {} }""", "scenario", "must be 1-63 letters" },
        { """{ "scenario": 42, "tableInsert": {} }""", "scenario", "42 must be text in double quotes" },
        { """{ "scenario": "bad", "startDelaySeconds": -1, "tableInsert": {} }""", "startDelaySeconds", "-1 must be between 0 and 300" },
        { """{ "scenario": "bad", "startDelaySeconds": 301, "tableInsert": {} }""", "startDelaySeconds", "301 must be between 0 and 300" },
        { """{ "scenario": "bad", "maxUnstoredShare": 1.5, "tableInsert": {} }""", "maxUnstoredShare", "1.5 must be between 0 and 1" },
        { """{ "scenario": "bad", "client": { "maxConnectionsPerServer": 0 }, "tableInsert": {} }""", "client.maxConnectionsPerServer", "0 must be between 1 and 65535" },
        { """{ "scenario": "bad", "client": { "requestTimeoutSeconds": 0 }, "tableInsert": {} }""", "client.requestTimeoutSeconds", "must be between 0.1 and 3600" },
        { """{ "scenario": "bad", "client": { "primeRounds": 101 }, "tableInsert": {} }""", "client.primeRounds", "101 must be between 0 and 100" },
        { """{ "scenario": "bad", "client": { "sdkRetries": "yes" }, "tableInsert": {} }""", "client.sdkRetries", "\"yes\" must be true or false" },
        { """{ "scenario": "bad", "client": null, "tableInsert": {} }""", "client", "must be an object or omitted" },
        { """{ "scenario": "bad", "client": { "driver": "fast" }, "tableInsert": {} }""", "client.driver", "\"fast\" must be \"lean\" (hand-written requests, the default) or \"sdk\"" },
        { """{ "scenario": "bad", "client": { "driver": null }, "tableInsert": {} }""", "client.driver", "null must be \"lean\"" },
        { """{ "scenario": "bad", "tableInsert": { "entityCount": 0 } }""", "tableInsert.entityCount", "0 must be between 1 and 1000000000" },
        { """{ "scenario": "bad", "tableInsert": { "entityCount": 2000000000 } }""", "tableInsert.entityCount", "must be between 1 and 1000000000" },
        { """{ "scenario": "bad", "tableInsert": { "entitySizeBytes": 2000000 } }""", "tableInsert.entitySizeBytes", "1 MiB entity limit" },
        { """{ "scenario": "bad", "tableInsert": { "entitySizeBytes": 0 } }""", "tableInsert.entitySizeBytes", "0 must be between 1 and" },
        { """{ "scenario": "bad", "tableInsert": { "batchSize": 150 } }""", "tableInsert.batchSize", "150 exceeds the service limit of 100 entities per transaction" },
        { """{ "scenario": "bad", "tableInsert": { "batchSize": 0 } }""", "tableInsert.batchSize", "0 must be between 1 and 100" },
        { """{ "scenario": "bad", "tableInsert": { "batchSize": 100, "entitySizeBytes": 64000 } }""", "tableInsert.batchSize", "over the 4 MiB transaction limit" },
        { """{ "scenario": "bad", "tableInsert": { "partitionCount": 0 } }""", "tableInsert.partitionCount", "0 must be between 1 and 100000" },
        { """{ "scenario": "bad", "tableInsert": { "concurrency": 5000000 } }""", "tableInsert.concurrency", "5000000 must be between 1 and 1024" },
        { """{ "scenario": "bad", "tableInsert": { "concurrency": 5000000000 } }""", "tableInsert.concurrency", "5000000000 must be between 1 and 1024" },
        { """{ "scenario": "bad", "tableInsert": { "concurrency": 0 } }""", "tableInsert.concurrency", "0 must be between 1 and 1024" },
        { """{ "scenario": "bad", "tableInsert": { "slices": 0 } }""", "tableInsert.slices", "0 must be between 1 and 256" },
        { """{ "scenario": "bad", "tableInsert": { "slices": 257 } }""", "tableInsert.slices", "257 must be between 1 and 256" },
        { """{ "scenario": "bad", "tableInsert": { "slices": "two" } }""", "tableInsert.slices", "\"two\" must be a number" },
        { """{ "scenario": "bad", "tableInsert": { "slices": 1.5 } }""", "tableInsert.slices", "1.5 must be a whole number" },
        { """{ "scenario": "bad", "tableInsert": { "entityCount": 10, "slices": 20 } }""", "tableInsert.slices", "exceeds entityCount 10" },
        { """{ "scenario": "bad", "tableInsert": { "targetOperationsPerSecond": -5 } }""", "tableInsert.targetOperationsPerSecond", "-5 must be between 0 and 1000000" },
        { """{ "scenario": "bad", "tableInsert": { "durationSeconds": 86401 } }""", "tableInsert.durationSeconds", "86401 must be between 0 and 86400" },
        { """{ "scenario": "bad", "tableInsert": { "durationSeconds": 3, "warmupSeconds": 5 } }""", "tableInsert.warmupSeconds", "must be shorter than durationSeconds 3" },
        { """{ "scenario": "bad", "tableInsert": { "warmupOperations": -1 } }""", "tableInsert.warmupOperations", "-1 must be between 0 and 1000000000" },
        { """{ "scenario": "bad", "tableInsert": 3 }""", "tableInsert", "3 must be an object in { }" },
        { """{ "scenario": "bad", "blobUpload": { "blobCount": 0 } }""", "blobUpload.blobCount", "0 must be between 1 and 100000" },
        { """{ "scenario": "bad", "blobUpload": { "blobSizeBytes": 300000000000000 } }""", "blobUpload.blobSizeBytes", "must be between 1 and 209715200000000" },
        { """{ "scenario": "bad", "blobUpload": { "blockSizeBytes": 0 } }""", "blobUpload.blockSizeBytes", "0 must be between 1 and 268435456" },
        { """{ "scenario": "bad", "blobUpload": { "blockSizeBytes": 300000000 } }""", "blobUpload.blockSizeBytes", "one shared block buffer per slice" },
        { """{ "scenario": "bad", "blobUpload": { "blobSizeBytes": 1000000, "blockSizeBytes": 10 } }""", "blobUpload.blobSizeBytes", "over the service limit of 50000 blocks per blob" },
        { """{ "scenario": "bad", "blobUpload": { "parallelBlocks": 0 } }""", "blobUpload.parallelBlocks", "0 must be between 1 and 1024" },
        { """{ "scenario": "bad", "blobUpload": { "blockRetries": 11 } }""", "blobUpload.blockRetries", "11 must be between 0 and 10" },
        { """{ "scenario": "bad", "blobUpload": { "slices": 0 } }""", "blobUpload.slices", "0 must be between 1 and 256" },
        { """{ "scenario": "bad", "blobUpload": { "verifyContent": "true" } }""", "blobUpload.verifyContent", "\"true\" must be true or false" },
        { """{ "scenario": "bad" }""", "workloads", "at least one workload is required" },
        { """{ "scenario": "bad", "scenarioo": "x", "tableInsert": {} }""", "scenarioo", "(unknown field) is not a field of the spec" },
        { """{ "scenario": "bad", "tableInsert": { "batchsize2": 10 } }""", "tableInsert.batchsize2", "(unknown field) is not a field of tableInsert; did you mean batchSize? the known fields are" },
        { "{ \"scenario\": \"bad\",\n  \"tableInsert\": { \"batchSize\": 10 },\n  \"scenario\": \"other\" }", "scenario", "(duplicate key) is given twice, at line 1, column 3 and line 3, column 3; give it once" },
        { "{ \"scenario\": \"bad\", \"tableInsert\": { \"batchSize\": 10 }, \"scenario\": \"other\" }", "scenario", "(duplicate key) is given twice, at line 1, column 3 and line 1, column 58; give it once" },
        { "{ \"scenario\": \"bad\", \"tableInsert\": {\n \"batchSize\": 10,\n \"BatchSize\": 20 } }", "tableInsert.BatchSize", "(unknown field) is not a field of tableInsert: field names are case-sensitive; did you mean batchSize?" },
        { """{ "scenario": "bad", "tableInsert": {}, "sweep": { "parameter": "tableInsert.nope", "values": [1] } }""", "sweep.parameter", "must name a numeric field" },
        { """{ "scenario": "bad", "tableInsert": {}, "sweep": { "parameter": "tableInsert.batchSize", "values": [] } }""", "sweep.values", "must list 1 to 100 values" },
        { """{ "scenario": "bad", "tableInsert": {}, "sweep": { "parameter": "tableInsert.batchSize", "values": [1, "x"] } }""", "sweep.values[1]", "\"x\" must be a number" },
        { """{ "scenario": "bad", "tableInsert": {}, "sweep": { "parameter": "tableInsert.batchSize", "values": [1] }, "saturation": {} }""", "sweep/saturation", "are exclusive" },
        { """{ "scenario": "bad", "tableInsert": {}, "saturation": { "factor": 1 } }""", "saturation.factor", "1 must be between 1.01 and 100" },
        { """{ "scenario": "bad", "tableInsert": {}, "saturation": { "start": 8, "max": 4 } }""", "saturation.max", "4 must be between 8 and" },
        { "{ \"scenario\": \"bad\", \"tableInsert\": { }", "(spec)", "is not valid JSON: line 1, column 40: Expected depth to be zero" },
        { "{\n  \"scenario\": \"bad\",\n  \"tableInsert\": { \"batchSize\": tru }\n}", "(spec)", "is not valid JSON: line 3, column 36: 'tru } }' is an invalid JSON literal" },
        { "[1, 2]", "(spec)", "must be a JSON object" },
        { "{ // a comment, and curl --data took the newlines\n \"scenario\": \"bad\" }".Replace("\n", ""), "(spec)", "curl --data strips newlines; send a file with --data-binary @FILE" },
    };

    [Theory]
    [MemberData(nameof(Specs))]
    public async Task ABadSpecIsRejectedByTheCliAndTheApiNamingFieldValueAndRuleAndNothingIsCreated(string spec, string field, string rule)
    {
        var before = await SnapshotAsync();

        string file = Path.Combine(Path.GetTempPath(), $"bad-{Guid.NewGuid():N}.json");
        await File.WriteAllTextAsync(file, spec);
        var stderr = new StringWriter();
        int exit = await CliApp.RunAsync(["run", "--spec", file, "--connection-string", azurite.ConnectionString, "--out", Path.GetTempPath()], new StringWriter(), stderr, default);
        Assert.Equal(2, exit);
        Assert.Contains($"  {field}: ", stderr.ToString());
        Assert.Contains(rule, stderr.ToString());

        var response = await (await ApiAsync()).StartAsync(spec, new Uri("http://localhost/"), null, default);
        Assert.Equal(400, response.StatusCode);
        var error = response.Body["errors"]![0]!;
        Assert.Equal(field, (string?)error["field"]);
        Assert.Contains(rule, (string?)error["message"]);
        Assert.False(string.IsNullOrEmpty((string?)error["value"]));
        Assert.False(string.IsNullOrEmpty((string?)error["rule"]));

        Assert.Equal(before, await SnapshotAsync());
    }

    [Fact]
    public void EveryUnknownFieldAtEveryLevelAndEveryDuplicateIsReportedNotOnlyTheFirst()
    {
        var (spec, errors) = Engine.Spec.RunSpecParser.Parse("""
            { "scenario": "bad", "scenarioo": 1,
              "client": { "sdkRetry": true, "primeRounds": 2, "primeRounds": 3 },
              "tableInsert": { "batchsize2": 10, "slices": 1 },
              "saturation": { "mx": 4 } }
            """);
        Assert.Null(spec);
        Assert.Equal(
            [
                "client.primeRounds: (duplicate key) is given twice, at line 2, column 33 and line 2, column 51",
                "scenarioo: (unknown field) is not a field of the spec",
                "client.sdkRetry: (unknown field) is not a field of client",
                "tableInsert.batchsize2: (unknown field) is not a field of tableInsert",
                "saturation.mx: (unknown field) is not a field of saturation",
            ],
            errors.Select(e => e.ToString().Split(';')[0]));
    }

    [Theory]
    [InlineData("", "(spec)", "(empty) must be a run spec: a JSON object")]
    [InlineData("   \n ", "(spec)", "(empty) must be a run spec")]
    public async Task AnEmptyBodyIs400(string body, string field, string message)
    {
        var response = await (await ApiAsync()).StartAsync(body, new Uri("http://localhost/"), null, default);
        Assert.Equal(400, response.StatusCode);
        Assert.Equal(field, (string?)response.Body["errors"]![0]!["field"]);
        Assert.Contains(message, (string?)response.Body["errors"]![0]!["message"]);
    }

    [Theory]
    [InlineData("Bad/Id")]
    [InlineData("UPPER")]
    [InlineData("-leading-dash")]
    [InlineData("an-id-that-is-far-too-long-for-a-run-id")]
    public async Task AnInstanceIdWithIllegalCharactersIs400OverHttpAndStartsNothing(string id)
    {
        var before = await SnapshotAsync();
        await using var server = await LocalApiServer.StartAsync(await ApiAsync(), port: 0, default);
        using var http = new HttpClient { BaseAddress = server.Address };

        var response = await http.PostAsync($"api/runs?id={Uri.EscapeDataString(id)}",
            new StringContent("""{ "scenario": "bad-id", "tableInsert": { "entityCount": 10, "batchSize": 10 } }""", Encoding.UTF8, "application/json"));

        Assert.Equal(System.Net.HttpStatusCode.BadRequest, response.StatusCode);
        var error = JsonNode.Parse(await response.Content.ReadAsStringAsync())!["errors"]![0]!;
        Assert.Equal("id", (string?)error["field"]);
        Assert.Equal($"\"{id}\"", (string?)error["value"]);
        Assert.Contains("must be 1-36 lowercase letters, digits or '-'", (string?)error["rule"]);
        Assert.Equal(before, await SnapshotAsync());
    }

    [Theory]
    [InlineData(new[] { "run", "--spec", "/no/such/spec.json" }, "--spec: ")]
    [InlineData(new[] { "run", "--spec" }, "--spec: a value is required")]
    [InlineData(new[] { "run", "--spec-file", "x.json" }, "unknown option '--spec-file' for 'storagebench run'; did you mean --spec?")]
    [InlineData(new[] { "serve", "--port", "seventy" }, "--port: \"seventy\" must be a port number from 0 to 65535")]
    [InlineData(new[] { "cleanup", "--older-than", "soon", "--connection-string", "UseDevelopmentStorage=true" }, "--older-than: \"soon\" must be a duration like 30m, 6h or 2d")]
    [InlineData(new[] { "runs", "--connection-string", "UseDevelopmentStorage=true", "--max", "-1" }, "--max: \"-1\" must be a positive whole number")]
    [InlineData(new[] { "query", "nope" }, "query \"nope\" is not one of")]
    [InlineData(new[] { "frobnicate" }, "unknown command or argument 'frobnicate' for 'storagebench'")]
    public async Task BadCommandLinesExitTwoWithTheOptionAndTheRule(string[] args, string message)
    {
        var stderr = new StringWriter();
        Assert.Equal(2, await CliApp.RunAsync(args, new StringWriter(), stderr, default));
        Assert.Contains(message, stderr.ToString());
    }

    [Fact]
    public void ThereAreAtLeastFortyBadSpecs() => Assert.True(Specs.Count >= 40, $"{Specs.Count} cases");

    private async Task<RunsApi> ApiAsync() => new(await azurite.ClientHubAsync(), azurite.Results, new TargetCleaner([azurite.Target]), TimeProvider.System, "http");

    /// <summary>Every table, container and result row in this class's Azurite: what a rejected spec must not change.</summary>
    private async Task<string> SnapshotAsync()
    {
        // The API's (client-only) task hub exists before anything is compared: its queues and tables are not the spec's doing.
        await azurite.ClientHubAsync();
        var tables = (await azurite.TableNamesAsync()).Order().ToList();
        var containers = (await azurite.ContainerNamesAsync()).Order();
        var rows = new List<string>();
        foreach (string table in tables)
        {
            await foreach (var row in azurite.Tables.GetTableClient(table).QueryAsync<Azure.Data.Tables.TableEntity>(select: ["PartitionKey", "RowKey"]))
            {
                rows.Add($"{table}/{row.PartitionKey}/{row.RowKey}");
            }
        }
        return $"tables {string.Join(",", tables)}; containers {string.Join(",", containers)}; rows {string.Join(",", rows)}";
    }
}
