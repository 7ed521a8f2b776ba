using System.Diagnostics;
using System.Text.Json;
using StorageBench.Cli;
using StorageBench.Engine;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// What the real Durable engine gives a run, as Durable Functions gives it in Azure: a run whose process dies is finished
/// by another process on the same task hub, exactly; and a run's slices spread over several worker processes, as over
/// Function App instances. Each test has an Azurite of its own (its default task hub is nobody else's).
/// </summary>
[Trait("Category", "EndToEnd")]
public class ResumeAndScaleOutTests(ITestOutputHelper output)
{
    [Fact]
    public async Task ARunWhoseProcessIsKilledIsFinishedByResumeCompletedVerifiedWithTheKilledAttemptsWritesDeleted()
    {
        await using var storage = await AzuriteServer.StartAsync();
        var target = StorageTarget.FromConnectionString(storage.ConnectionString);
        string dir = TempDir();
        string spec = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(spec, """
            { "scenario": "killed-resumed", "startDelaySeconds": 1,
              "tableInsert": { "entitySizeBytes": 128, "batchSize": 20, "partitionCount": 2, "concurrency": 2, "slices": 2, "durationSeconds": 30,
                               "targetOperationsPerSecond": 10 } }
            """);

        // The first process: SIGKILLed about 10 s into its 30-s run, while both slices are writing. Its hub store is in a folder of
        // this test's own, which no other process then holds, so its Azurite stops and the resume starts it again from disk, as after
        // a reboot. An open loop of 200 entities/s keeps the table small, so the verification's scan (which finds and deletes the
        // killed executions' writes) is quick on a busy machine.
        var ownStore = new Dictionary<string, string> { [HubAzurite.FolderSetting] = Path.Combine(dir, "hub") };
        string runId;
        // The account in a file, as the docs say keys are given: the resume is then given no target at all and finds this file again.
        string account = Path.Combine(dir, "account.cs");
        await File.WriteAllTextAsync(account, storage.ConnectionString);
        using (var first = CliProcess.Start(ownStore, "run", "--spec", spec, "--connection-string-file", account, "--out", Path.Combine(dir, "first")))
        {
            runId = await CliOutput.RunIdAsync(first);
            await Waits.ForEntitiesAsync(target, runId, 1000, TimeSpan.FromSeconds(90));
            await Task.Delay(TimeSpan.FromSeconds(5));
            first.Kill();
            await first.WaitForExitAsync();
        }
        var killed = Stopwatch.StartNew();

        // Only the file's path was kept for the resume, never the key.
        string kept = Path.Combine(dir, "hub", "run-targets", runId + ".path");
        Assert.Equal(account, (await File.ReadAllTextAsync(kept)).Trim());
        if (!OperatingSystem.IsWindows())
        {
            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(Path.GetDirectoryName(kept)!));
        }
        using var resume = CliProcess.Start(ownStore, "run", "--resume", runId, "--out", Path.Combine(dir, "resumed"));
        var said = resume.StandardOutput.ReadToEndAsync();
        var errors = resume.StandardError.ReadToEndAsync();
        await resume.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(6));
        int exit = resume.ExitCode;
        var stdout = new StringWriter();
        await stdout.WriteAsync(await said + await errors);
        output.WriteLine($"resumed: ended {killed.Elapsed.TotalSeconds:0.0} s after the kill, exit {exit}");
        output.WriteLine(stdout.ToString());

        Assert.Equal(0, exit);
        Assert.Contains($"Resuming run {runId}", stdout.ToString());
        Assert.Contains($"Target: the connection string in {account}, as run {runId} was started.", stdout.ToString());
        Assert.False(File.Exists(kept), "the ended run still has its target's record");
        var summary = JsonSerializer.Deserialize<RunSummary>(await File.ReadAllTextAsync(Path.Combine(dir, "resumed", "summary.json")), JsonDefaults.Options)!;
        Assert.Equal(RunStatus.Completed, summary.Status);
        var table = summary.Workloads.Single();
        // Counted against storage: exactly the accepted executions' entities; the killed executions' writes were deleted.
        Assert.True(table.Verified.Matched, table.Verified.Detail);
        Assert.True(table.Verified.Discarded > 0, $"no writes of the killed attempts were found: {table.Verified.Detail}");
        Assert.True(table.Entities >= 1000);
        // It says it was resumed: the slices re-ran, late, and say so.
        Assert.Contains(summary.Notes, e => e.Contains("re-run", StringComparison.Ordinal) && e.Contains("did not hand back its result", StringComparison.Ordinal));
        Assert.True(table.SliceSpread!.MaxStartLagSeconds > 5, $"start lag {table.SliceSpread.MaxStartLagSeconds} s");
        Assert.All(table.PerSlice, s => Assert.EndsWith($"/{resume.Id}", s.Worker));
        // Nothing left in the target; the run's own hub is gone from the hub store too, and none of it was ever in the target.
        Assert.Empty(await new TargetCleaner([target]).OfRunAsync(runId, default));
        Assert.Empty(await AccountContents.AllAsync(target));
        using var hubStore = await HubAzurite.OpenAsync(ownStore[HubAzurite.FolderSetting], default);
        Assert.Empty(await AccountContents.OfRunHubAsync(StorageTarget.FromConnectionString(hubStore.ConnectionString), runId));
    }

    [Fact]
    public async Task TwoWorkerProcessesShareARunStartedWithExternalWorkersAndEachSliceNamesItsWorker()
    {
        await using var storage = await AzuriteServer.StartAsync();
        string dir = TempDir();
        string spec = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(spec, """
            { "scenario": "scale-out", "startDelaySeconds": 3,
              "tableInsert": { "entitySizeBytes": 128, "batchSize": 50, "partitionCount": 4, "concurrency": 1, "slices": 4, "durationSeconds": 5 } }
            """);
        // Two instances of at most 2 activities each: the 4 slices cannot all land on one. A hub of this test's own in the tests' hub store.
        string hub = "scaleout" + Guid.NewGuid().ToString("N")[..8];
        using var a = CliProcess.Start(null, "worker", "--connection-string", storage.ConnectionString, "--task-hub", hub, "--max-activities", "2");
        using var b = CliProcess.Start(null, "worker", "--connection-string", storage.ConnectionString, "--task-hub", hub, "--max-activities", "2");
        try
        {
            foreach (var worker in new[] { a, b })
            {
                // The first to start may say it started the hub store's Azurite first.
                string? line;
                while ((line = await worker.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromMinutes(1))) is not null && line.StartsWith("Hub store: ", StringComparison.Ordinal))
                {
                }
                Assert.StartsWith("Worker ", line);
            }
            var stdout = new StringWriter();
            int exit = await CliApp.RunAsync(["run", "--external-workers", "--task-hub", hub, "--spec", spec, "--connection-string", storage.ConnectionString, "--out", Path.Combine(dir, "out")],
                stdout, new StringWriter(), default).WaitAsync(TimeSpan.FromMinutes(3));
            output.WriteLine(stdout.ToString());

            Assert.Equal(0, exit);
            var summary = JsonSerializer.Deserialize<RunSummary>(await File.ReadAllTextAsync(Path.Combine(dir, "out", "summary.json")), JsonDefaults.Options)!;
            Assert.Equal(RunStatus.Completed, summary.Status);
            var table = summary.Workloads.Single();
            Assert.True(table.Verified.Matched, table.Verified.Detail);
            var workers = table.PerSlice.Select(s => s.Worker).ToList();
            output.WriteLine("slices ran on: " + string.Join(", ", table.PerSlice.Select(s => $"{s.SliceIndex}→{s.Worker}")));
            // Both workers ran slices, none ran here: two worker processes, on one machine (one instance).
            Assert.Equal([$"{Environment.MachineName}/{a.Id}", $"{Environment.MachineName}/{b.Id}"], workers.Distinct().Order());
            Assert.Equal(2, summary.Environment.Workers);
            Assert.Equal(1, summary.Environment.Instances);
        }
        finally
        {
            a.Kill();
            b.Kill();
        }
    }

    private static string TempDir()
    {
        string dir = Path.Combine(Path.GetTempPath(), "sb-resume-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        return dir;
    }
}
