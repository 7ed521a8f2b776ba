using System.Text.Json.Nodes;
using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>A spec run from each entry point on the fixture's Azurite: the runs API (the Function App's HTTP function's code) and `storagebench run`.</summary>
internal static class EntryPoints
{
    /// <summary>"api" or "cli": the run's result as summary.json has it.</summary>
    public static Task<JsonNode> RunAsync(AzuriteFixture azurite, string entry, string spec) =>
        entry == "api" ? ThroughTheApiAsync(azurite, spec) : ThroughTheCliAsync(azurite, spec);

    /// <summary>POST /api/runs, then GET until it ended: the result in the status payload.</summary>
    public static async Task<JsonNode> ThroughTheApiAsync(AzuriteFixture azurite, string spec)
    {
        await using var hub = await azurite.NewHubAsync();
        var api = new RunsApi(hub, azurite.Results, new TargetCleaner([azurite.Target]), TimeProvider.System, "http");
        var start = await api.StartAsync(spec, new Uri("http://localhost/"), null, default);
        Assert.Equal(202, start.StatusCode);
        string id = (string)start.Body["id"]!;
        var status = await Waits.UntilAsync(() => api.GetAsync(id, default), s => s.StatusCode != 202, TimeSpan.FromMinutes(5), $"run {id} ended");
        return status.Body["result"]!;
    }

    /// <summary>`storagebench run` in this process, its control plane in the fixture's account: the summary.json it wrote.</summary>
    public static async Task<JsonNode> ThroughTheCliAsync(AzuriteFixture azurite, string spec)
    {
        string dir = Path.Combine(Path.GetTempPath(), "sb-rooms-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        string file = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(file, spec);
        var stderr = new StringWriter();
        int exit = await CliApp.RunAsync(["run", "--spec", file, "--connection-string", azurite.ConnectionString, "--hub-connection-string", azurite.ConnectionString,
            "--out", Path.Combine(dir, "out")], new StringWriter(), stderr, default);
        Assert.True(exit == 0, $"exit {exit}: {stderr}");
        return JsonNode.Parse(await File.ReadAllTextAsync(Path.Combine(dir, "out", "summary.json")))!;
    }
}
