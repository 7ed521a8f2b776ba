using System.Diagnostics;
using System.Reflection;
using System.Text.Json;
using System.Text.RegularExpressions;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// The Function App as the Functions host will see it: the functions.metadata the Functions SDK generates from the real
/// packages at build time (scripts/check-functions.sh builds it before the tests), checked against functions/README.md.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(BuildsCollection.Name)]
public class FunctionAppTests
{
    private static readonly string Root = Repo.Root();

    /// <summary>One function: its name, trigger (http, timer, orchestration, activity), route or schedule, and HTTP methods.</summary>
    internal sealed record FunctionRow(string Name, string Trigger, string Route, string Methods);

    [Fact]
    public async Task TheGeneratedMetadataHasExactlyTheFunctionsTriggersRoutesAndMethodsTheReadmeLists()
    {
        var generated = FromMetadata(await MetadataAsync());
        var documented = FromReadme(await File.ReadAllTextAsync(Path.Combine(Root, "functions", "README.md")));

        Assert.True(documented.Count >= 22, $"only {documented.Count} rows in functions/README.md");
        Assert.Empty(Differences(documented, generated));
        // Every orchestrator and activity the engine calls by name has its function.
        var names = typeof(ActivityNames).GetFields(BindingFlags.Public | BindingFlags.Static).Where(f => f.IsLiteral).Select(f => (string)f.GetRawConstantValue()!)
            .Append(BenchmarkOrchestrator.Name).Append(StepOrchestrator.Name);
        Assert.All(names, n => Assert.Contains(generated, g => g.Name == n && g.Trigger is "activity" or "orchestration"));
    }

    [Fact]
    public async Task ARenamedFunctionOrAChangedRouteIsCaught()
    {
        var generated = FromMetadata(await MetadataAsync());
        var documented = FromReadme(await File.ReadAllTextAsync(Path.Combine(Root, "functions", "README.md")));

        var renamed = generated.Select(g => g.Name == "StartRun" ? g with { Name = "StartBenchmark" } : g).ToList();
        Assert.Equal(["only in README: StartRun http runs post", "only in functions.metadata: StartBenchmark http runs post"], Differences(documented, renamed));
        var rerouted = generated.Select(g => g.Name == "GetRun" ? g with { Route = "run/{id}" } : g).ToList();
        Assert.Equal(["only in README: GetRun http runs/{id} get", "only in functions.metadata: GetRun http run/{id} get"], Differences(documented, rerouted));
    }

    internal static List<string> Differences(IReadOnlyCollection<FunctionRow> readme, IReadOnlyCollection<FunctionRow> metadata) =>
        [.. readme.Except(metadata).Select(r => "only in README: " + Text(r)).Concat(metadata.Except(readme).Select(m => "only in functions.metadata: " + Text(m)))];

    private static string Text(FunctionRow r) => string.Join(' ', new[] { r.Name, r.Trigger, r.Route, r.Methods }.Where(p => p.Length > 0));

    /// <summary>The table rows of functions/README.md whose first cell is a `Name`.</summary>
    internal static List<FunctionRow> FromReadme(string markdown) =>
    [
        .. Regex.Matches(markdown, @"^\| `(?<name>\w+)` \| (?<trigger>\w+) \| (?<route>[^|]*)\| (?<methods>[^|]*)\|", RegexOptions.Multiline)
            .Select(m => new FunctionRow(m.Groups["name"].Value, m.Groups["trigger"].Value, m.Groups["route"].Value.Trim().Trim('`'), m.Groups["methods"].Value.Trim())),
    ];

    /// <summary>The functions of a functions.metadata file: the trigger binding's type without "Trigger", its route or schedule, its methods.</summary>
    internal static List<FunctionRow> FromMetadata(string json)
    {
        using var document = JsonDocument.Parse(json);
        var rows = new List<FunctionRow>();
        foreach (var function in document.RootElement.EnumerateArray())
        {
            var trigger = function.GetProperty("bindings").EnumerateArray().Single(b => b.GetProperty("type").GetString()!.EndsWith("Trigger", StringComparison.Ordinal));
            string Property(string name) => trigger.TryGetProperty(name, out var v) && v.ValueKind == JsonValueKind.String ? v.GetString()! : "";
            string methods = trigger.TryGetProperty("methods", out var m) ? string.Join(",", m.EnumerateArray().Select(x => x.GetString())) : "";
            rows.Add(new FunctionRow(function.GetProperty("name").GetString()!, trigger.GetProperty("type").GetString()![..^"Trigger".Length],
                Property("route") is { Length: > 0 } route ? route : Property("schedule"), methods));
        }
        return rows;
    }

    /// <summary>The Function App's generated functions.metadata; built here when no build left one (e.g. a bare dotnet test).</summary>
    private static async Task<string> MetadataAsync()
    {
        string file = Path.Combine(Root, "functions", "StorageBench.Functions", "bin", "Release", "net10.0", "linux-x64", "functions.metadata");
        if (!File.Exists(file))
        {
            var psi = new ProcessStartInfo("bash", [Path.Combine(Root, "scripts", "check-functions.sh")]) { WorkingDirectory = Root, RedirectStandardOutput = true, RedirectStandardError = true };
            BuildEnvironment.Clean(psi);
            using var build = Process.Start(psi)!;
            string output = await build.StandardOutput.ReadToEndAsync() + await build.StandardError.ReadToEndAsync();
            await build.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(5));
            Assert.True(build.ExitCode == 0, output);
        }
        return await File.ReadAllTextAsync(file);
    }
}
