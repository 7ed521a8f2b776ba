using System.Diagnostics;
using System.Text.RegularExpressions;
using StorageBench.Cli;
using StorageBench.Engine.Measurement;
using StorageBench.Orchestration;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>Live progress on the console: in place in a terminal (checked in a real one, tmux), plain lines otherwise.</summary>
[Trait("Category", "EndToEnd")]
public class ProgressTests(ITestOutputHelper output)
{
    private static readonly DateTime T0 = new(2026, 11, 23, 6, 0, 0, DateTimeKind.Utc);

    private static RunProgress Running(double seconds, long entities) => new("running", "tableInsert", 2, Live:
        new WorkloadProgress("tableInsert", "entities", entities, 40_000, seconds, 0, 4_000, entities / 100, 3, 1, 2, 0));

    [Fact]
    public async Task WithoutATerminalProgressIsPlainLinesOnePerPhaseAndOneEveryTenSeconds()
    {
        var text = new StringWriter();
        var display = new ProgressDisplay(text, inPlace: false);
        await display.ShowAsync(new RunProgress("preparing", null, 0), T0);
        for (int second = 0; second <= 25; second++)
        {
            await display.ShowAsync(Running(second, second * 1_000), T0.AddSeconds(1 + second));
        }
        await display.ShowAsync(new RunProgress("cleaning up", null, 0), T0.AddSeconds(27));
        await display.EndAsync();
        // The CLI reads the slices' live figures only when they would be shown: ten seconds after the last line.
        Assert.False(display.ShowsFiguresAt(T0.AddSeconds(36.9)));
        Assert.True(display.ShowsFiguresAt(T0.AddSeconds(37)));

        Assert.Equal(
            [
                "  preparing...",
                "  running tableInsert on 2 slice(s)...",
                "  running tableInsert on 2 slice(s): 10,000/40,000 entities (25%), 4,000 entities/s, throttled 3, failed 1",
                "  running tableInsert on 2 slice(s): 20,000/40,000 entities (50%), 4,000 entities/s, throttled 3, failed 1",
                "  cleaning up...",
            ],
            text.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries));
        Assert.DoesNotContain('\r', text.ToString());
        Assert.DoesNotContain('\u001b', text.ToString());
    }

    [Fact]
    public async Task APhaseWithoutFiguresSaysWhatItDoesAndThatItIsStillAtIt()
    {
        var text = new StringWriter();
        var display = new ProgressDisplay(text, inPlace: false);
        for (int second = 0; second <= 25; second++)
        {
            await display.ShowAsync(new RunProgress(StepOrchestrator.VerifyingPhase, "tableInsert", 2), T0.AddSeconds(second));
        }

        Assert.Equal(
            [
                "  verifying tableInsert on 2 slice(s) (counting what is stored; deleting writes no result counts)...",
                "  verifying tableInsert on 2 slice(s): 10 s so far",
                "  verifying tableInsert on 2 slice(s): 20 s so far",
            ],
            text.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries));
    }

    [Fact]
    public async Task ACountThatFallsAfterAResumeSaysWhy()
    {
        var text = new StringWriter();
        var display = new ProgressDisplay(text, inPlace: false);
        await display.ShowAsync(Running(0, 0), T0);
        await display.ShowAsync(Running(10, 30_000), T0.AddSeconds(10));
        await display.ShowAsync(Running(20, 8_000), T0.AddSeconds(20));

        string[] lines = text.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries);
        Assert.DoesNotContain("lower than before", lines[1]);
        Assert.EndsWith("(lower than before: a slice run again starts its count over)", lines[2]);
    }

    [Fact]
    public async Task InATerminalProgressIsOneLineRewrittenAboutOnceASecondAndErasedAtTheEnd()
    {
        var text = new StringWriter();
        var display = new ProgressDisplay(text, inPlace: true);
        for (int tenth = 0; tenth <= 30; tenth++)
        {
            await display.ShowAsync(Running(tenth / 10.0, tenth * 100), T0.AddSeconds(tenth / 10.0));
        }
        await display.EndAsync();

        string shown = text.ToString();
        Assert.DoesNotContain('\n', shown);
        // t = 0, 1, 2, 3 s: four rewrites of the same line, then the erase.
        Assert.Equal(5, Regex.Count(shown, "\r\u001b\\[2K"));
        Assert.EndsWith("3,000/40,000 entities (8%), 4,000 entities/s, throttled 3, failed 1\r\u001b[2K", shown);
    }

    [Fact]
    public void FiguresSayDoneOutOfTotalOrElapsedOutOfDurationInTheWorkloadsUnit()
    {
        Assert.Equal("12/30 s, 48,000 entities, 4,100 entities/s, throttled 7, failed 0",
            ProgressDisplay.Figures(new WorkloadProgress("tableInsert", "entities", 48_000, 0, 12.2, 30, 4_100, 480, 7, 0, 4, 0)));
        Assert.Equal("67.1/134.2 MB (50%), 25.2 MB/s, throttled 0, failed 2",
            ProgressDisplay.Figures(new WorkloadProgress("blobUpload", "bytes", 67_108_864, 134_217_728, 3, 0, 25_200_000, 64, 0, 2, 2, 1)));
    }

    [RequiresToolFact("tmux")]
    public async Task InARealTerminalTheCliShowsLiveProgressInPlace()
    {
        string dir = Directory.CreateTempSubdirectory("sb-progress").FullName;
        string spec = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(spec, """
            { "scenario": "progress", "startDelaySeconds": 1,
              "tableInsert": { "entitySizeBytes": 512, "batchSize": 50, "partitionCount": 2, "concurrency": 4, "durationSeconds": 8 } }
            """);
        string socket = "sb-" + Guid.NewGuid().ToString("N")[..8];
        string cli = Path.Combine(AppContext.BaseDirectory, "storagebench.dll");
        // A user's terminal: no CI variable (which would make the CLI print plain lines).
        await TmuxAsync(socket, "new-session", "-d", "-x", "160", "-y", "50",
            $"cd '{Repo.Root()}' && env -u CI dotnet '{cli}' run --spec '{spec}' --out '{dir}'; echo EXIT=$?; sleep 600");
        try
        {
            var seen = new List<(long Entities, string Line)>();
            var clock = Stopwatch.StartNew();
            string screen = "";
            while (!screen.Contains("EXIT=", StringComparison.Ordinal) && clock.Elapsed < TimeSpan.FromSeconds(120))
            {
                await Task.Delay(300);
                screen = await TmuxAsync(socket, "capture-pane", "-p");
                var progress = screen.Split('\n').Where(l => l.Contains("running tableInsert on 1 slice(s):", StringComparison.Ordinal)).ToList();
                Assert.True(progress.Count <= 1, "progress scrolled instead of updating in place:\n" + screen);
                if (progress is [var line] && Regex.Match(line, @"/8 s, ([\d,]+) entities, [\d,]+ entities/s, throttled \d+, failed \d+") is { Success: true } m
                    && (seen.Count == 0 || seen[^1].Line != line.Trim()))
                {
                    seen.Add((long.Parse(m.Groups[1].Value.Replace(",", ""), System.Globalization.CultureInfo.InvariantCulture), line.Trim()));
                }
            }
            output.WriteLine(string.Join('\n', seen.Select(s => s.Line)));
            // The whole terminal, scrollback included: the summary is longer than the window.
            screen = await TmuxAsync(socket, "capture-pane", "-p", "-S", "-");
            output.WriteLine(screen);

            Assert.Contains("EXIT=0", screen);
            Assert.True(seen.Count >= 3, $"only {seen.Count} distinct progress lines seen");
            Assert.True(seen.Select(s => s.Entities).Order().SequenceEqual(seen.Select(s => s.Entities)), "the entity count went backwards");
            Assert.True(seen[^1].Entities > seen[0].Entities);
            // The summary replaces the progress line: nothing stale is left on screen.
            Assert.Contains("— Completed", screen);
            Assert.DoesNotContain("running tableInsert on 1 slice(s):", screen);
        }
        finally
        {
            await TmuxAsync(socket, "kill-server");
            Directory.Delete(dir, recursive: true);
        }
    }

    /// <summary>tmux on a server of the test's own (-L), so nothing else's sessions are touched.</summary>
    internal static async Task<string> TmuxAsync(string socket, params string[] args)
    {
        var psi = new ProcessStartInfo("tmux") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        psi.ArgumentList.Add("-L");
        psi.ArgumentList.Add(socket);
        foreach (string a in args)
        {
            psi.ArgumentList.Add(a);
        }
        using var process = Process.Start(psi)!;
        string text = await process.StandardOutput.ReadToEndAsync();
        await process.WaitForExitAsync();
        return text;
    }
}
