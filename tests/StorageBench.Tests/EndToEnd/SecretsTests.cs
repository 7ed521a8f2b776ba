using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Azure.Data.Tables;
using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;
using StorageBench.TaskHub;

namespace StorageBench.Tests;

/// <summary>
/// Connection strings and keys never leave the process: an account with a key of its own (not the
/// well-known Azurite key) is benchmarked through the CLI, the runs API and a failing run, and every
/// output — console, report files, result rows, telemetry, API answers — is searched for the key.
/// Application Insights ingestion is a loopback stand-in (Azure cannot be reached from here).
/// </summary>
[Trait("Category", "EndToEnd")]
public class SecretsTests
{
    [Fact]
    public async Task NoKeyOrConnectionStringAppearsInAnyOutputOfARunAFailedRunTheApiOrTheTelemetry()
    {
        string key = Convert.ToBase64String(RandomNumberGenerator.GetBytes(64));
        string wrongKey = Convert.ToBase64String(RandomNumberGenerator.GetBytes(64));
        await using var storage = await AzuriteServer.StartAsync(account: "sbsecrets", key: key);
        await using var ingestion = await IngestionListener.StartAsync();
        string cs = storage.ConnectionString;
        string badCs = cs.Replace(key, wrongKey, StringComparison.Ordinal);
        var env = new Dictionary<string, string> { ["APPLICATIONINSIGHTS_CONNECTION_STRING"] = ingestion.ConnectionString };
        var outputs = new StringBuilder();
        string dir = Path.Combine(Path.GetTempPath(), "sb-secrets-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        string spec = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(spec, """
            { "scenario": "secrets", "startDelaySeconds": 0,
              "tableInsert": { "entityCount": 400, "entitySizeBytes": 256, "batchSize": 50 },
              "blobUpload": { "blobCount": 2, "blobSizeBytes": 65536, "blockSizeBytes": 16384 } }
            """);

        // The CLI: a good run, the same run with a wrong key (every request refused), and the other commands.
        // Its control plane in the same account, so the account's key also travels as a hub connection string and its results row is there.
        var good = await CliProcess.RunAsync(env, "run", "--spec", spec, "--connection-string", cs, "--hub-connection-string", cs, "--out", Path.Combine(dir, "good"));
        Assert.True(good.Exit == 0, good.Output);
        var refused = await CliProcess.RunAsync(env, "run", "--spec", spec, "--connection-string", badCs, "--out", Path.Combine(dir, "refused"));
        Assert.True(refused.Exit == 1, refused.Output);
        Assert.Contains("403", refused.Output);
        outputs.AppendLine(good.Output).AppendLine(refused.Output);
        foreach (var (args, exit, says) in new (string[], int, string)[]
        {
            (["runs", "--connection-string", cs, "--scenario", "secrets"], 0, "1 run row(s)"),
            (["runs", "--connection-string", badCs, "--scenario", "secrets"], 1, "error: storage: 403 AuthorizationFailure: Server failed to authenticate"),
            (["cleanup", "--dry-run", "--older-than", "0s", "--connection-string", cs], 0, "nothing was deleted"),
            (["cleanup", "--older-than", "0s", "--connection-string", badCs], 1, "(check the account key or SAS in the connection string)"),
            (["run", "--spec", spec, "--connection-string", cs.Replace("TableEndpoint=http://", "TableEndpoint=nonsense://", StringComparison.Ordinal)], 2,
                "error: --connection-string: \"DefaultEndpointsProtocol=http;AccountName=sbsecrets;AccountKey=***;"),
            (["runs"], 2, $"error: {TargetSettings.HubConnectionString}: \"AccountName=sbsecrets;AccountKey=***\" has an AccountKey that is not base64"),
        })
        {
            var cli = await CliProcess.RunAsync(args.Length == 1
                ? new Dictionary<string, string>(env) { [TargetSettings.HubConnectionString] = $"AccountName=sbsecrets;AccountKey={key}%" }
                : env, args);
            Assert.True(cli.Exit == exit, $"{string.Join(' ', args.Take(2))}: exit {cli.Exit}: {cli.Output}");
            Assert.Contains(says, cli.Output);
            outputs.AppendLine(cli.Output);
        }

        // The runs API, as `storagebench serve` answers it.
        var target = StorageTarget.FromConnectionString(cs);
        using (var results = new ResultsTableStore(target))
        {
            await using var hub = await BenchmarkTaskHub.StartAsync(results.Target, [target], results, AzuriteFixture.NewHubSettings());
            var api = new RunsApi(hub, results, new TargetCleaner([target]), TimeProvider.System, "local-api");
            await using var server = await LocalApiServer.StartAsync(api, port: 0, default);
            using var http = new HttpClient { BaseAddress = server.Address };
            var post = await http.PostAsync("api/runs", new StringContent(await File.ReadAllTextAsync(spec), Encoding.UTF8, "application/json"));
            string started = await post.Content.ReadAsStringAsync();
            string id = JsonDocument.Parse(started).RootElement.GetProperty("id").GetString()!;
            string status = await Waits.UntilAsync(() => http.GetStringAsync($"api/runs/{id}"),
                s => s.Contains("\"Completed\"", StringComparison.Ordinal) || s.Contains("\"Failed\"", StringComparison.Ordinal), TimeSpan.FromMinutes(3), $"run {id} ended");
            outputs.AppendLine(started).AppendLine(status).AppendLine(await http.GetStringAsync("api/runs?scenario=secrets"));
        }

        // The report files, every stored row and every telemetry item.
        foreach (string file in Directory.EnumerateFiles(dir, "*", SearchOption.AllDirectories).Where(f => f != spec))
        {
            outputs.AppendLine(await File.ReadAllTextAsync(file));
        }
        var tables = new TableServiceClient(cs);
        int rows = 0;
        await foreach (var table in tables.QueryAsync())
        {
            await foreach (var row in tables.GetTableClient(table.Name).QueryAsync<TableEntity>())
            {
                rows++;
                outputs.AppendJoin('\n', row.Select(p => $"{p.Key}={p.Value}")).AppendLine();
            }
        }
        foreach (var item in ingestion.Items)
        {
            outputs.AppendLine(item.GetRawText());
        }

        string all = outputs.ToString();
        Assert.True(rows >= 3, $"{rows} result rows");
        Assert.True(ingestion.Items.Count >= 3, $"{ingestion.Items.Count} telemetry items");
        Assert.Contains("Completed", all);
        foreach (string secret in new[] { key, wrongKey, Uri.EscapeDataString(key), Uri.EscapeDataString(wrongKey), key[..24], wrongKey[..24] })
        {
            Assert.False(all.Contains(secret, StringComparison.Ordinal), $"a key appears in the outputs: {Around(all, secret)}");
        }
        // Where a connection string is shown (in an error naming it), its key is ***.
        Assert.DoesNotMatch(@"(?i)(AccountKey|SharedAccessSignature)=(?!\*\*\*)", all);
    }

    private static string Around(string text, string secret)
    {
        int at = text.IndexOf(secret, StringComparison.Ordinal);
        return text[Math.Max(0, at - 200)..Math.Min(text.Length, at + 50)];
    }
}
