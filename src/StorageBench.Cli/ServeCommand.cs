using System.CommandLine;
using System.Globalization;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Cost;

namespace StorageBench.Cli;

/// <summary>`storagebench serve`: the runs API on loopback, with a worker on the local task hub (docs/architecture.md).</summary>
public static class ServeCommand
{
    public static Command Create(CliContext cli)
    {
        var port = new Option<int>("--port")
        {
            Description = "port on 127.0.0.1 (0 picks a free one)", HelpName = "N", DefaultValueFactory = _ => 7071,
            CustomParser = r => UsageErrors.ParseEach(r, t => int.TryParse(t, NumberStyles.None, CultureInfo.InvariantCulture, out int p) && p <= 65535
                ? p : throw new FormatException($"--port: \"{t}\" must be a port number from 0 to 65535")) is [var p] ? p : 0,
        };
        var connectionString = CliTargets.ConnectionStringOption("storage account the runs go to (default: the STORAGEBENCH_TARGET_* settings if set, else Azurite started on loopback)");
        var prices = CliTargets.PricesOption();
        var taskHub = CliTargets.TaskHubOption("Durable task hub the API's runs go through, in the control plane's store (default: the target account's shared hub, where its `storagebench worker`s serve)");
        var hubConnectionString = CliTargets.HubConnectionStringOption();
        var command = new Command("serve", "The runs API and the dashboard (at /) on 127.0.0.1: POST /api/runs with a spec, GET /api/runs/{id}, " +
            "POST /api/runs/{id}/cancel, GET /api/runs?scenario=S&last=N, GET /api/runs/{id}/report, GET /api/compare?baseline=ID&candidate=ID. Ctrl+C asks the runs it started to stop, waits for them, then stops.") { port, connectionString, prices, taskHub, hubConnectionString };
        command.SetAction((r, ct) => RunAsync(r.GetValue(port), r.GetValue(connectionString), r.GetValue(prices), cli.Stdout, cli.Stderr, ct, r.GetValue(taskHub),
            r.GetValue(hubConnectionString)));
        return command;
    }

    public static async Task<int> RunAsync(int port, string? connectionString, string? pricesFile, TextWriter stdout, TextWriter stderr, CancellationToken ct,
        string? taskHub = null, string? hubConnectionString = null)
    {
        // Checked again when the server binds it (another program may take it meanwhile), but first, before Azurite or the hub store start.
        LoopbackServer.EnsureFree(port);
        if (await CliTargets.PricesAsync(pricesFile, stderr).ConfigureAwait(false) is not PriceTable prices)
        {
            return CliApp.UsageError;
        }
        InterruptNotice.ServeStarted();
        // Only a serve without a target of its own starts an Azurite (as its target), and stops it with itself.
        string stops = CliTargets.GivenTargets(connectionString, out _).Count > 0 ? "Ctrl+C stops it" : "Ctrl+C stops it and the Azurite it started";
        return await CliTargets.WithTargetsAsync(connectionString, hubConnectionString, stdout, stderr, async (targets, plane) =>
        {
            using var telemetry = CliTargets.Telemetry();
            using var results = CliTargets.ResultsStore(plane);
            await using var hub = await CliTargets.StartHubAsync(targets, plane, results, taskHub ?? TaskHubSettings.SharedHubFor(targets), telemetry, null, ct).ConfigureAwait(false);
            var api = new RunsApi(hub, results, new TargetCleaner(targets), TimeProvider.System, "local-api", prices);
            await using var server = await LocalApiServer.StartAsync(api, port, ct).ConfigureAwait(false);
            await stdout.WriteLineAsync($"""
                Runs API on {server.Address} (loopback only; {stops}):
                  curl -X POST {server.Address}api/runs -H "Content-Type: application/json" --data-binary @specs/quick.json
                  curl {server.Address}api/runs/<id>
                  curl -X POST {server.Address}api/runs/<id>/cancel
                  curl "{server.Address}api/runs?scenario=quick&last=5"
                Dashboard: open {server.Address} in a browser (docs/dashboard.md)
                """).ConfigureAwait(false);
            await server.WaitForShutdownAsync(ct).ConfigureAwait(false);
            // As Durable would: a running activity is never stopped from outside; the runs this server started are asked to stop and are waited for.
            await api.CancelStartedAsync(stdout, CancellationToken.None).ConfigureAwait(false);
            return 0;
        }, ct).ConfigureAwait(false);
    }
}
