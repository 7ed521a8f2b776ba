using System.Text.Json;

namespace StorageBench.Tests;

/// <summary>
/// queries/*.kql and the workbook, parsed and semantically checked offline by Kusto.Language (its npm
/// build, @kusto/language-service-next: the NuGet package is not on this machine's mirror) against
/// the Application Insights workspace schema (AppEvents).
/// </summary>
[Trait("Category", "EndToEnd")]
public class KqlQueryTests
{
    private static readonly string Root = Repo.Root();

    [Fact]
    public async Task EveryQueryAndEveryWorkbookQueryPassesTheKustoLanguageCheck()
    {
        var files = Directory.GetFiles(Path.Combine(Root, "queries"), "*.kql").Append(Path.Combine(Root, "queries", "workbook.json")).ToArray();
        var (exit, lines) = await CheckAsync(files);

        Assert.True(lines.Count >= 16, $"only {lines.Count} queries checked");   // 8 files + the same 8 in the workbook
        var failures = lines.Where(l => l.GetProperty("diagnostics").GetArrayLength() > 0).Select(l => l.GetRawText()).ToList();
        Assert.True(failures.Count == 0, string.Join("\n", failures));
        Assert.Equal(0, exit);
    }

    [Fact]
    public async Task AnUnknownColumnOrAMisplacedKeywordFailsTheCheck()
    {
        string bad = Path.Combine(Path.GetTempPath(), $"bad-{Guid.NewGuid():N}.kql");
        await File.WriteAllTextAsync(bad, "AppEvents | where Nmae == \"StorageBenchRun\" | project TimeGenerated");
        string keyword = Path.Combine(Path.GetTempPath(), $"kw-{Guid.NewGuid():N}.kql");
        await File.WriteAllTextAsync(keyword, "let latest = AppEvents | take 1;\nlatest");   // 'latest' is a KQL keyword

        var (exit, lines) = await CheckAsync(bad, keyword);

        Assert.Equal(1, exit);
        Assert.Contains("Nmae", lines[0].GetProperty("diagnostics")[0].GetProperty("message").GetString());
        Assert.True(lines[1].GetProperty("diagnostics").GetArrayLength() > 0);
    }

    [Fact]
    public async Task TheCommittedWorkbookIsExactlyWhatTheQueriesBuild()
    {
        string built = Path.Combine(Path.GetTempPath(), $"workbook-{Guid.NewGuid():N}.json");
        var (exit, _) = await NodeAsync(Path.Combine(Root, "scripts", "build-workbook.js"), built);
        Assert.Equal(0, exit);
        Assert.Equal(await File.ReadAllTextAsync(Path.Combine(Root, "queries", "workbook.json")), await File.ReadAllTextAsync(built));
    }

    private static Task<(int Exit, List<JsonElement> Lines)> CheckAsync(params string[] files) => KqlCheck.RunAsync(false, files);

    private static Task<(int Exit, string Stdout)> NodeAsync(params string[] args) => KqlCheck.NodeAsync(args);
}
