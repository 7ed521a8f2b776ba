using System.CommandLine;
using StorageBench.Engine.Queries;
using StorageBench.Engine.Telemetry;

namespace StorageBench.Cli;

/// <summary>`storagebench query NAME`: a named query over the local runs (C# equivalents of queries/NAME.kql).</summary>
public static class QueryCommand
{
    public static Command Create(CliContext cli)
    {
        var name = new Argument<string>("NAME") { Description = $"the query: {string.Join(", ", LocalQueries.Named.Keys)}" };
        var results = CliTargets.LocalResultsOption("directory of the local runs");
        var command = new Command("query", "Run a named query over the local runs (out/*/summary.json) and print its table.") { name, results };
        command.SetAction((r, _) => RunAsync(r.GetValue(name)!, r.GetValue(results), cli.Stdout, cli.Stderr));
        return command;
    }

    public static async Task<int> RunAsync(string name, string? given, TextWriter stdout, TextWriter stderr)
    {
        string results = given ?? "out";
        if (!LocalQueries.Named.TryGetValue(name, out var query))
        {
            await stderr.WriteLineAsync($"error: query \"{name}\" is not one of {string.Join(", ", LocalQueries.Named.Keys)}").ConfigureAwait(false);
            return CliApp.UsageError;
        }
        if (CliTargets.MissingResults(given) is { } missing)
        {
            await stderr.WriteLineAsync("error: " + missing).ConfigureAwait(false);
            return CliApp.UsageError;
        }
        var events = LocalQueries.LoadEvents(results);
        await stdout.WriteLineAsync($"{name} over {events.Count(e => e.Name == TelemetryEmitter.RunEvent)} run(s) in {Path.GetFullPath(results)}:").ConfigureAwait(false);
        await stdout.WriteLineAsync(query(events).ToMarkdown()).ConfigureAwait(false);
        return 0;
    }
}
