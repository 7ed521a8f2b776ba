using System.Diagnostics;
using System.Text.Json;

namespace StorageBench.Tests;

/// <summary>scripts/kql-check.js (Kusto.Language's npm build): one JSON object per query it checks.</summary>
internal static class KqlCheck
{
    private static readonly string Root = Repo.Root();

    /// <summary>Checks the files; with <paramref name="reads"/> each object also names the tables, events, properties and measurements the query reads.</summary>
    public static async Task<(int Exit, List<JsonElement> Lines)> RunAsync(bool reads, params string[] files)
    {
        string[] args = [Path.Combine(Root, "scripts", "kql-check.js"), .. reads ? ["--reads"] : Array.Empty<string>(), .. files];
        var (exit, stdout) = await NodeAsync(args);
        return (exit, [.. stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => JsonDocument.Parse(l).RootElement.Clone())]);
    }

    /// <summary>Every query under queries/ and what it reads.</summary>
    public static async Task<List<JsonElement>> ReadsOfQueriesAsync()
    {
        var (exit, lines) = await RunAsync(true, Directory.GetFiles(Path.Combine(Root, "queries"), "*.kql"));
        Assert.True(exit == 0, string.Join("\n", lines.Select(l => l.GetRawText())));
        return lines;
    }

    public static async Task<(int Exit, string Stdout)> NodeAsync(params string[] args)
    {
        var psi = new ProcessStartInfo("node") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var a in args)
        {
            psi.ArgumentList.Add(a);
        }
        using var process = Process.Start(psi)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync();
        string err = await stderr;
        Assert.True(err.Length == 0 || process.ExitCode <= 1, err);
        return (process.ExitCode, await stdout);
    }
}
