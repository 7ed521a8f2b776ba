using System.Diagnostics;
using System.Text.Json;
using StorageBench.Cli;
using StorageBench.Engine;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// A timed slice in segments survives its process: SIGKILLed mid-run and resumed, the run loses the running segment only —
/// the finished segments' figures and writes stand, the lost one runs again, and the summary covers the whole duration.
/// Its own Azurite and hub store, as <see cref="ResumeAndScaleOutTests"/>.
/// </summary>
[Trait("Category", "EndToEnd")]
public class SegmentResumeTests(ITestOutputHelper output)
{
    private const double Duration = 60, Segment = 10;

    [Fact]
    public async Task AKilledSegmentedRunResumesFromItsLastFinishedSegmentCompletedVerifiedAndWhole()
    {
        await using var storage = await AzuriteServer.StartAsync();
        var target = StorageTarget.FromConnectionString(storage.ConnectionString);
        string dir = Path.Combine(Path.GetTempPath(), "sb-segments-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        string spec = Path.Combine(dir, "spec.json");
        // 2 slices at 100 entities/s each (an open loop keeps the table small, so verification is quick on a busy machine).
        await File.WriteAllTextAsync(spec, $$"""
            { "scenario": "segments-resumed", "startDelaySeconds": 1, "segmentSeconds": {{Segment}},
              "tableInsert": { "entitySizeBytes": 128, "batchSize": 20, "partitionCount": 2, "concurrency": 2, "slices": 2, "durationSeconds": {{Duration}},
                               "targetOperationsPerSecond": 10 } }
            """);
        var ownStore = new Dictionary<string, string> { [HubAzurite.FolderSetting] = Path.Combine(dir, "hub") };
        string account = Path.Combine(dir, "account.cs");
        await File.WriteAllTextAsync(account, storage.ConnectionString);
        string runId;
        DateTime killedUtc;
        var started = Stopwatch.StartNew();
        using (var first = CliProcess.Start(ownStore, "run", "--spec", spec, "--connection-string-file", account, "--out", Path.Combine(dir, "first")))
        {
            runId = await CliOutput.RunIdAsync(first);
            // Killed about 25 s into the run: two segments finished, the third running.
            await Waits.ForEntitiesAsync(target, runId, 400, TimeSpan.FromSeconds(90));
            await Task.Delay(TimeSpan.FromSeconds(2.5 * Segment - 2));
            first.Kill();
            killedUtc = DateTime.UtcNow;
            await first.WaitForExitAsync();
        }
        var killed = Stopwatch.StartNew();
        using var resume = CliProcess.Start(ownStore, "run", "--resume", runId, "--out", Path.Combine(dir, "resumed"));
        // When the resume's slices were done: its "verifying" line. What follows (verification, clean-up, the result) is the
        // machine's speed at deleting a table, not what the resume re-ran.
        double? verifyingAt = null;
        var said = Task.Run(async () =>
        {
            var text = new System.Text.StringBuilder();
            while (await resume.StandardOutput.ReadLineAsync() is { } line)
            {
                if (verifyingAt is null && line.TrimStart().StartsWith("verifying", StringComparison.Ordinal))
                {
                    verifyingAt = killed.Elapsed.TotalSeconds;
                }
                text.AppendLine(line);
            }
            return text.ToString();
        });
        var errors = resume.StandardError.ReadToEndAsync();
        await resume.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(6));
        string stdout = await said + await errors;
        var summary = JsonSerializer.Deserialize<RunSummary>(await File.ReadAllTextAsync(Path.Combine(dir, "resumed", "summary.json")), JsonDefaults.Options)!;
        var table = summary.Workloads.Single();
        var origin = DateTime.UnixEpoch.AddSeconds(table.Timeline.StartUnixSecond);
        double left = Duration - (killedUtc - origin).TotalSeconds;
        output.WriteLine($"killed {(killedUtc - origin).TotalSeconds:0.0} s into the run ({left:0.0} s left); resume verifying {verifyingAt:0.0} s and ended " +
            $"{killed.Elapsed.TotalSeconds:0.0} s after the kill, exit {resume.ExitCode}; measured {table.DurationSeconds:0.0} s, {table.Entities:N0} entities");
        output.WriteLine(stdout);

        Assert.Equal(0, resume.ExitCode);
        Assert.Equal(RunStatus.Completed, summary.Status);
        Assert.True(table.Verified.Matched, table.Verified.Detail);
        // The segments finished before the kill are in the figures: the run's timeline starts before it, on the first process.
        Assert.True(origin < killedUtc.AddSeconds(-2 * Segment + 1), $"timeline starts {origin:HH:mm:ss}, killed {killedUtc:HH:mm:ss}");
        // The whole duration, once: the lost segment ran again, whole, and nothing else did.
        Assert.InRange(table.DurationSeconds, Duration - 2, Duration + Segment);
        Assert.Contains(summary.Notes, n => n.Contains("re-run", StringComparison.Ordinal));
        // One row per slice, naming the worker of its last segment: the resume's process.
        Assert.Equal([0, 1], table.PerSlice.Select(s => s.SliceIndex).Order());
        Assert.All(table.PerSlice, s => Assert.EndsWith($"/{resume.Id}", s.Worker));
        // The resume ran what was left and the lost segment again, plus the run's fixed cost before its ending: a start-up (as
        // long as the first run's, process to first slot) and the hub's redelivery of the lost segment (the engine's, within 30 s).
        // The ending is the run's own too (verification and clean-up took 10-45 s beside two CPU hogs): it is printed above.
        double startup = (started.Elapsed - killed.Elapsed - (killedUtc - origin)).TotalSeconds;
        Assert.True(verifyingAt < left + Segment + startup + Redelivery,
            $"the resume's slices were done {verifyingAt:0.0} s after the kill, for {left:0.0} s left (start-up {startup:0.0} s)");
    }

    /// <summary>What the resume promises for a lost activity's message to come back (RunCommand.Resume says "within 30 s").</summary>
    private const double Redelivery = 30;
}
