using System.Diagnostics;
using System.Text.RegularExpressions;
using StorageBench.Engine.Reports;

namespace StorageBench.Tests;

/// <summary>The HTML report opened in a real headless Chromium, offline (the page must need no network).</summary>
[Trait("Category", "EndToEnd")]
[Collection(ResultsAzuriteCollection.Name)]
public partial class HtmlReportTests(AzuriteFixture azurite)
{
    [GeneratedRegex(@"<svg class=""chart""")]
    private static partial Regex Chart();

    [RequiresToolFact("chromium")]
    public async Task TheReportOpensOfflineInHeadlessChromiumWithNoConsoleErrorsAndVisibleCharts()
    {
        await using var host = await azurite.NewHubAsync();
        const string spec = """
            { "scenario": "report", "startDelaySeconds": 0,
              "tableInsert": { "entityCount": 1500, "entitySizeBytes": 512, "concurrency": 2 },
              "sweep": { "parameter": "tableInsert.batchSize", "values": [10, 50, 100] } }
            """;
        var summary = await Pipeline.RunAsync(host, spec);
        string dir = Path.Combine(Repo.Root(), "tests", "StorageBench.Tests", "TestResults", "report");
        var files = await ReportWriter.WriteAsync(summary, dir, default);
        string html = files.Single(f => f.EndsWith(".html", StringComparison.Ordinal));

        string page = await File.ReadAllTextAsync(html);
        Assert.DoesNotContain("http://", page.Replace("http://www.w3.org/2000/svg", ""));
        Assert.DoesNotContain("https://", page);
        Assert.DoesNotContain("<script", page);

        string screenshot = Path.Combine(dir, "summary.png");
        File.Delete(screenshot);
        var (dom, log) = await ChromiumAsync(html, "--dump-dom");
        await ChromiumAsync(html, $"--screenshot={screenshot}", "--window-size=1200,2400");

        // Chromium logs every console message as "INFO:CONSOLE:<line>] ..." (checked against a page that calls console.error).
        Assert.DoesNotContain(":CONSOLE", log);
        // 1 sweep curve + per step a latency histogram and a timeline, or for a step too short to have one, a note that says so.
        int timelines = Regex.Count(dom, @"<svg class=""chart"" id=""timeline-");
        Assert.Equal(3, timelines + Regex.Count(dom, @"id=""no-timeline-"));
        Assert.Equal(1 + 3 + timelines, Chart().Count(dom));
        Assert.True(Regex.Count(dom, @"<rect class=""bar""") >= 3);
        // The sweep's throughput, p50 and p99 (each drawn only where enough samples support it), and each timeline's line.
        Assert.Equal(3 + timelines, Regex.Count(dom, @"<polyline class=""series"""));
        Assert.Contains("throughput, p50 and p99 latency against tableInsert.batchSize", dom);
        // The sweep's log axis is ticked at the swept values, not at even steps between them.
        string sweep = Regex.Match(dom, @"<svg class=""chart"" id=""sweep-[\s\S]*?</svg>").Value;
        Assert.Equal(["10", "50", "100"], Regex.Matches(sweep, @"text-anchor=""middle"">([\d.]+)</text>").Select(m => m.Groups[1].Value));
        Assert.True(new FileInfo(screenshot).Length > 50_000, "the screenshot looks blank");
    }

    /// <summary>scripts/chromium-headless.sh: the same script makes the screenshots under docs/.</summary>
    private static async Task<(string Stdout, string Stderr)> ChromiumAsync(string htmlFile, params string[] extra)
    {
        var psi = new ProcessStartInfo(Path.Combine(Repo.Root(), "scripts", "chromium-headless.sh"))
        {
            RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
        };
        foreach (var arg in extra.Prepend(htmlFile))
        {
            psi.ArgumentList.Add(arg);
        }
        using var process = Process.Start(psi)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(90));
        await process.WaitForExitAsync(timeout.Token);
        Assert.True(process.ExitCode == 0, $"chromium-headless.sh exited {process.ExitCode}: {await stderr}");
        return (await stdout, await stderr);
    }
}
