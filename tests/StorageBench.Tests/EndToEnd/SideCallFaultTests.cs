using StorageBench.Engine.Workloads.TableInsert;
using System.Diagnostics;
using System.Text.Json;
using Azure.Identity;
using Microsoft.AspNetCore.Http;
using StorageBench.Cli;
using StorageBench.Engine.Cleanup;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Planning;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.StorageCalls;
using StorageBench.Engine.Targets;
using StorageBench.Engine;
using StorageBench.Orchestration;
using StorageBench.TaskHub;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// Every storage call outside the measured path, made slow past its deadline one kind at a time by a loopback proxy
/// in front of a real Azurite (docs/storage-calls.md): the run ends with the outcome the policy states, never with
/// an unhandled exception. The deadlines are shortened (<see cref="Short"/>) so a case takes seconds; the code path
/// is the product's.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(FaultsAzuriteCollection.Name)]
public class SideCallFaultTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    /// <summary>
    /// The product's policy with deadlines of about a second; the proxy holds the selected requests <see cref="Late"/>.
    /// Verification and cleanup count and delete a run's 8,000 entities, which a busy machine cannot do within a second, so
    /// only the cases that hold those calls shorten them (<see cref="OneSecond"/>).
    /// </summary>
    private static readonly StorageCallPolicy Short = new()
    {
        Quick = TimeSpan.FromSeconds(1), ResultsTry = TimeSpan.FromSeconds(0.5), Results = TimeSpan.FromSeconds(2),
        Verification = TimeSpan.FromSeconds(30), Cleanup = TimeSpan.FromSeconds(30),
    };

    private static readonly TimeSpan OneSecond = TimeSpan.FromSeconds(1);

    private static readonly TimeSpan Late = TimeSpan.FromSeconds(4);

    private const string Spec = """
        { "scenario": "side-calls", "startDelaySeconds": 0, "client": { "primeRounds": 0 },
          "tableInsert": { "entitySizeBytes": 128, "batchSize": 20, "concurrency": 2, "slices": 2, "durationSeconds": 2.5 } }
        """;

    [Fact]
    public async Task SlowProgressWritesAreSkippedAndTheRunCompletesVerified()
    {
        var (summary, proxy, elapsed) = await RunWithSlowAsync(FaultProxy.ToTable(ResultsTableStore.DefaultSignalsTable, "PUT", rowKeyPrefix: "progress-"));

        Report("progress row write", proxy, elapsed, summary);
        Assert.True(proxy.Count(Fault.Late) > 0, "the proxy held progress writes");
        await AssertCompletedAndVerified(summary);
        // Every slice missed some: one line for all of them.
        Assert.Contains(summary.Notes, e => e.StartsWith("tableInsert, 2 of 2 slices: progress update skipped (slice 0: ", StringComparison.Ordinal)
            && e.Contains("no answer within its 1 s deadline"));
    }

    [Fact]
    public async Task SlowCancelPollsMeanNoCancelSeenAndTheRunCompletesVerified()
    {
        var (summary, proxy, elapsed) = await RunWithSlowAsync(FaultProxy.ToTable(ResultsTableStore.DefaultSignalsTable, "GET", rowKeyPrefix: "cancel"));

        Report("cancel poll", proxy, elapsed, summary);
        Assert.True(proxy.Count(Fault.Late) > 0, "the proxy held cancel polls");
        await AssertCompletedAndVerified(summary);
        Assert.Contains(summary.Notes, e => e.StartsWith("tableInsert, 2 of 2 slices: cancel poll unanswered (no cancel seen) (slice 0: ", StringComparison.Ordinal)
            && e.Contains("no answer within its 1 s deadline"));
    }

    [Fact]
    public async Task SlowVerificationQueriesLeaveTheFiguresUnverifiedWithTheReason()
    {
        var (summary, proxy, elapsed) = await RunWithSlowAsync(FaultProxy.ToTable("sbt", "GET", queriesOnly: true), Short with { Verification = OneSecond });

        Report("verification query", proxy, elapsed, summary);
        Assert.True(proxy.Count(Fault.Late) > 0);
        Assert.Equal(RunStatus.Completed, summary.Status);
        var table = summary.Workloads.Single();
        Assert.True(table.Entities > 0 && table.Succeeded > 0, "the figures are kept");
        Assert.False(table.Verified.Matched);
        Assert.StartsWith("storage could not be read after the run (no answer within its 1 s deadline", table.Verified.NotVerifiedReason);
        Assert.StartsWith("not verified: storage could not be read", table.Verified.Detail);
        Assert.Contains(summary.Notes, e => e.StartsWith("tableInsert: not verified: storage could not be read after the run", StringComparison.Ordinal));
        Assert.Equal(1, RunCommand.ExitCode(summary));
        Assert.Empty(await azurite.LeftoversOfAsync(summary.RunId));
    }

    [Fact]
    public async Task SlowResultsRowsEndFailedWithTheLocalSummaryAndTheErrorNamed()
    {
        var (summary, proxy, elapsed) = await RunWithSlowAsync(FaultProxy.ToTable(ResultsTableStore.DefaultRunsTable));

        Report("results run/step rows", proxy, elapsed, summary);
        // One rule for steps and runs: a result that could not be stored is Failed; its figures are in the local summary.
        Assert.Equal(RunStatus.Failed, summary.Status);
        Assert.True(summary.Workloads.Single().Verified.Matched, summary.Workloads.Single().Verified.Detail);
        Assert.Contains(summary.Errors, e => e.StartsWith("storing the step's result: activity StoreStep failed: StorageCallFailedException: step row: no answer within its 2 s deadline",
            StringComparison.Ordinal));
        Assert.Contains(summary.Errors, e => e.StartsWith("storing result: activity StoreRun failed: StorageCallFailedException: run row: no answer within its 2 s deadline",
            StringComparison.Ordinal));
        Assert.Empty(await azurite.LeftoversOfAsync(summary.RunId));
        Assert.DoesNotContain(await azurite.Results.ListRunsAsync("side-calls", 50, default), r => r.GetString("RunId") == summary.RunId);
    }

    [Fact]
    public async Task SlowSliceRowsAreNamedAndTheRunCompletesVerified()
    {
        var (summary, proxy, elapsed) = await RunWithSlowAsync(FaultProxy.ToTable(ResultsTableStore.DefaultSlicesTable, "PUT"));

        Report("slice row write", proxy, elapsed, summary);
        await AssertCompletedAndVerified(summary);
        Assert.Contains(summary.Notes, e => e == "tableInsert, 2 of 2 slices: slice row not stored (figures kept in the step's result) (slice 0: no answer within its 2 s deadline)");
    }

    [Fact]
    public async Task SlowCleanupIsANamedErrorAndTheLeftoverIsNamedForTheCleanupCommand()
    {
        var (summary, proxy, elapsed) = await RunWithSlowAsync(FaultProxy.ToTable("Tables('sbt", "DELETE"), Short with { Cleanup = OneSecond });

        Report("step table deletion", proxy, elapsed, summary);
        Assert.Equal(RunStatus.Failed, summary.Status);
        Assert.True(summary.Workloads.Single().Verified.Matched);
        Assert.Contains(summary.Errors, e => e.StartsWith(
            "cleanup: activity DeleteTargets failed: StorageCallFailedException: deleting the step's table and container: no answer within its 1 s deadline", StringComparison.Ordinal));
        // The delete never reached storage: the step's table is left, and the cleanup command finds it by its name.
        var left = await new TargetCleaner([azurite.Target]).OfRunAsync(summary.RunId, default);
        output.WriteLine($"left in storage: {string.Join(", ", left.Select(l => l.Name))}");
        Assert.Single(left);
        await new TargetCleaner([azurite.Target]).DeleteAsync(left, default);
    }

    [Fact]
    public async Task SlowReadsOfTheResultsBackGiveTheSummaryWithTheErrorNamed()
    {
        var (proxy, target) = await FaultProxy.InFrontOfTablesAsync(azurite.ConnectionString,
            FaultProxy.ToTable(ResultsTableStore.DefaultSlicesTable, "GET", queriesOnly: true), Fault.Late, Late);
        await using var _ = proxy;
        using var results = new ResultsTableStore(target, policy: Short);
        // The run stores its rows directly; only reading them back goes through the proxy.
        await using var host = await azurite.NewHubAsync();
        var started = await new RunStarter(host, TimeProvider.System).StartAsync(RunSpecParser.ParseOrThrow(Spec), "test", null, default);
        await host.WaitForCompletionAsync(started.RunId!, default).WaitAsync(TimeSpan.FromMinutes(2));

        var reading = Stopwatch.StartNew();
        var summary = await RunResults.LoadAsync(host, results, started.RunId!, default);

        output.WriteLine($"reading results back: the summary came {reading.Elapsed.TotalSeconds:0.0} s later; {proxy.Count(Fault.Late)} request(s) held");
        Assert.NotNull(summary);
        Assert.Equal(RunStatus.Completed, summary.Status);
        Assert.Empty(summary.Workloads.Single().PerSlice);
        Assert.Contains(summary.Errors, e => e == "per-slice figures: the results table could not be read: no answer within its 2 s deadline");
    }

    /// <summary>The crash of issue 17: signals-table reads answered 7 s late crashed the CLI at its progress read. Default deadlines here.</summary>
    [Fact]
    public async Task TheCliCompletesWhenEveryReadOfTheSignalsTableIsSevenSecondsLate()
    {
        var (proxy, target) = await FaultProxy.InFrontOfTablesAsync(azurite.ConnectionString,
            FaultProxy.ToTable(ResultsTableStore.DefaultSignalsTable, "GET"), Fault.Late, TimeSpan.FromSeconds(7));
        await using var _ = proxy;
        string dir = Path.Combine(Path.GetTempPath(), "sb-side-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        string spec = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(spec, Spec.Replace("2.5", "3", StringComparison.Ordinal));
        var stdout = new StringWriter();
        var stderr = new StringWriter();

        var clock = Stopwatch.StartNew();
        // The signals table is in the control plane: the proxied account is the hub store here, and the target too.
        int exit = await CliApp.RunAsync(["run", "--spec", spec, "--connection-string", target.ConnectionString!, "--hub-connection-string", target.ConnectionString!, "--out", dir],
            stdout, stderr, default).WaitAsync(TimeSpan.FromMinutes(2));

        var summary = JsonSerializer.Deserialize<RunSummary>(await File.ReadAllTextAsync(Path.Combine(dir, "summary.json")), JsonDefaults.Options)!;
        Report("signals-table reads (CLI, default 5 s deadline)", proxy, clock.Elapsed, summary);
        output.WriteLine(stderr.ToString());
        Assert.True(proxy.Count(Fault.Late) > 0);
        Assert.Equal(0, exit);
        Assert.Equal("", stderr.ToString());
        await AssertCompletedAndVerified(summary);
    }

    /// <summary>
    /// A watch loop that meets something that is not a storage failure (here its results store is disposed under it,
    /// as a host shutting down would) cannot fault the slice or lose its figures: the slices come back whole and the
    /// failure is named.
    /// </summary>
    [Fact]
    public async Task AWatchLoopThatFaultsLosesNoFigures()
    {
        var results = new ResultsTableStore(azurite.Target, policy: Short);
        var log = new LogCapture();
        await using var host = await BenchmarkTaskHub.StartAsync(results.Target, [azurite.Target], results, AzuriteFixture.NewHubSettings(), loggers: log.Factory);
        var clock = Stopwatch.StartNew();
        var started = await new RunStarter(host, TimeProvider.System).StartAsync(RunSpecParser.ParseOrThrow(Spec), "test", null, default);
        string stepId = Planner.StepId(started.RunId!, 0);
        // Once both slices have reported progress, their watch loops are running.
        var deadline = Stopwatch.StartNew();
        while ((await azurite.Results.ProgressAsync(started.RunId!, stepId, default)).Count < 2 && deadline.Elapsed < TimeSpan.FromSeconds(60))
        {
            await Task.Delay(100);
        }
        results.Dispose();

        var summary = await Pipeline.SummaryAsync(host, started.RunId!);

        Report("watch loop faults (results store disposed under it)", 0, clock.Elapsed, summary);
        var table = summary.Workloads.Single();
        Assert.Equal(2, table.Slices);
        Assert.True(table.Entities > 0 && table.Verified.Matched, table.Verified.Detail);
        Assert.Contains(summary.Notes, e => e.StartsWith("tableInsert, 2 of 2 slices: progress or cancel poll failed (not a storage failure) (slice 0: ", StringComparison.Ordinal)
            && e.Contains(typeof(ObjectDisposedException).FullName!));
        Assert.Equal(RunStatus.Completed, summary.Status);
        Assert.Empty(await azurite.LeftoversOfAsync(summary.RunId));
        // Logged with the exception itself (event 2002), as an error: it is a bug, not a storage failure.
        Assert.Contains(log.WithId(2002), e => e.Exception is ObjectDisposedException && e.Level == Microsoft.Extensions.Logging.LogLevel.Error);
    }

    /// <summary>
    /// A watch loop whose results store gets no token (its credential throws Azure.Identity's AuthenticationFailedException,
    /// as a managed identity without access does): every cancel poll, progress write and the slice row fail before anything
    /// is sent. The slice's measured figures come back whole and are in storage; each failure is in its notes and in the log.
    /// </summary>
    [Fact]
    public async Task AWatchLoopWhoseResultsStoreGetsNoTokenLosesNoFigures()
    {
        // An https endpoint: the token is asked for before any connection, so nothing needs to listen there.
        var noToken = StorageTarget.FromEndpoints(new Uri("https://127.0.0.1:9/devstoreaccount1"), new Uri("https://127.0.0.1:9/devstoreaccount1")) with
        {
            Credential = new NoTokenCredential(),
        };
        using var results = new ResultsTableStore(noToken, policy: Short);
        var log = new LogCapture();
        var activities = new BenchmarkActivities([azurite.Target], results, TimeProvider.System, loggers: log.Factory);
        string runId = Planner.NewRunId(DateTime.UtcNow);
        string table = "sbtnotoken" + Guid.NewGuid().ToString("N")[..8];
        await azurite.Tables.CreateTableAsync(table);
        var spec = RunSpecParser.ParseOrThrow("""
            { "scenario": "no-token", "startDelaySeconds": 0, "client": { "primeRounds": 0 },
              "tableInsert": { "entitySizeBytes": 128, "batchSize": 10, "concurrency": 2, "durationSeconds": 2 } }
            """);
        var plan = TableInsertRoom.PlanSlices(runId, Planner.StepId(runId, 0), table, spec.TableInsert!, spec.Client, DateTime.UtcNow, 1).Single();

        var slice = (await activities.RunSliceAsync(TableInsertRoom.Instance.Pack(plan), default).WaitAsync(TimeSpan.FromMinutes(2))).Result!;

        output.WriteLine($"no token for the results store: {slice.Units} entities, {slice.Counts.Failed} failed; notes: {string.Join(" | ", slice.Notes)}");
        Assert.True(slice.Units > 0 && slice.Counts.Failed == 0, "the slice measured its writes");
        var verified = await TableInsertGroundTruth.VerifyTableAsync([azurite.Target], table, [slice.AttemptId], slice.Units + slice.WarmupUnits, default);
        Assert.True(verified.Matched, verified.Detail);
        Assert.Contains(slice.Notes, n => n.StartsWith("cancel poll unanswered (no cancel seen): ", StringComparison.Ordinal) && n.Contains("authentication failed: "));
        Assert.Contains(slice.Notes, n => n.StartsWith("progress update skipped: ", StringComparison.Ordinal) && n.Contains("authentication failed: "));
        Assert.Contains(slice.Notes, n => n.StartsWith("slice row not stored (figures kept in the step's result): authentication failed: ", StringComparison.Ordinal));
        Assert.DoesNotContain(slice.Notes, n => n.Contains("not a storage failure"));
        // In the log, each with the credential's exception: the skipped polls and updates (1001), the slice row (2001).
        Assert.Contains(log.WithId(1001), e => e.Message.StartsWith("Storage call 'cancel poll' skipped", StringComparison.Ordinal) && e.Exception is AuthenticationFailedException);
        Assert.Contains(log.WithId(1001), e => e.Message.StartsWith("Storage call 'progress' skipped", StringComparison.Ordinal) && e.Exception is AuthenticationFailedException);
        Assert.Contains(log.WithId(2001), e => e.Message.Contains("slice row not stored") && e.Exception?.InnerException is AuthenticationFailedException);
        await azurite.Tables.DeleteTableAsync(table);
    }

    /// <summary>A credential that never gets a token, as Azure.Identity's credentials fail: AuthenticationFailedException.</summary>
    private sealed class NoTokenCredential : Azure.Core.TokenCredential
    {
        public override Azure.Core.AccessToken GetToken(Azure.Core.TokenRequestContext requestContext, CancellationToken cancellationToken) =>
            throw new AuthenticationFailedException("NoTokenCredential: no identity has access (test)");

        public override ValueTask<Azure.Core.AccessToken> GetTokenAsync(Azure.Core.TokenRequestContext requestContext, CancellationToken cancellationToken) =>
            throw new AuthenticationFailedException("NoTokenCredential: no identity has access (test)");
    }

    /// <summary>
    /// A credential that gets no token (AuthenticationFailedException, as Azure.Identity's credentials fail) fails every
    /// request before it is sent; the slice counts each as a failure and its figures come back whole.
    /// </summary>
    [Fact]
    public async Task AnAuthenticationFailureInTheWorkloadLoopIsCountedAndTheSliceFiguresSurvive()
    {
        // An https endpoint: the token is asked for before any connection, so nothing needs to listen there.
        // (A credential that throws, rather than DefaultAzureCredential, whose managed-identity probe would leave loopback.)
        var unauthenticated = StorageTarget.FromEndpoints(new Uri("https://127.0.0.1:9/devstoreaccount1"), new Uri("https://127.0.0.1:9/devstoreaccount1")) with
        {
            Credential = new NoTokenCredential(),
        };
        var activities = new BenchmarkActivities([unauthenticated], azurite.Results, TimeProvider.System);
        string runId = Planner.NewRunId(DateTime.UtcNow);
        string stepId = Planner.StepId(runId, 0);
        var spec = RunSpecParser.ParseOrThrow("""
            { "scenario": "auth", "startDelaySeconds": 0, "client": { "primeRounds": 0 }, "tableInsert": { "entityCount": 40, "batchSize": 10, "concurrency": 2 } }
            """);
        var plan = TableInsertRoom.PlanSlices(runId, stepId, "sbtauth", spec.TableInsert!, spec.Client, DateTime.UtcNow, 1).Single();

        var clock = Stopwatch.StartNew();
        var slice = (await activities.RunSliceAsync(TableInsertRoom.Instance.Pack(plan), default).WaitAsync(TimeSpan.FromMinutes(2))).Result!;

        output.WriteLine($"auth failure: slice result after {clock.Elapsed.TotalSeconds:0.0} s: {slice.Counts.Operations} operations, {slice.Counts.Failed} failed");
        Assert.Equal(4, slice.Counts.Operations);
        Assert.Equal(4, slice.Counts.Failed);
        Assert.Equal(0, slice.Units);
        Assert.Equal(Outcome.ClientError, OutcomeClassifier.Classify(new AuthenticationFailedException("no token"), default));
        Assert.Equal(StorageFailureKind.Authentication, StorageFailures.Classify(new CredentialUnavailableException("no identity"), default)?.Kind);
    }

    private async Task<(RunSummary Summary, FaultProxy Proxy, TimeSpan Elapsed)> RunWithSlowAsync(Func<HttpRequest, bool> selects, StorageCallPolicy? policy = null) =>
        await RunWithAsync(selects, Fault.Late, policy);

    /// <summary>Runs <see cref="Spec"/> with every table request (target and results store) through a proxy that faults what <paramref name="selects"/> picks.</summary>
    private async Task<(RunSummary Summary, FaultProxy Proxy, TimeSpan Elapsed)> RunWithAsync(Func<HttpRequest, bool> selects, Fault fault, StorageCallPolicy? policy = null)
    {
        var (proxy, target) = await FaultProxy.InFrontOfTablesAsync(azurite.ConnectionString, selects, fault, Late);
        using var results = new ResultsTableStore(target, policy: policy ?? Short);
        var clock = Stopwatch.StartNew();
        try
        {
            await using var hub = await BenchmarkTaskHub.StartAsync(results.Target, [target], results, AzuriteFixture.NewHubSettings());
            var summary = await Pipeline.RunAsync(hub, Spec);
            return (summary, proxy, clock.Elapsed);
        }
        finally
        {
            await proxy.DisposeAsync();
        }
    }

    private async Task AssertCompletedAndVerified(RunSummary summary)
    {
        Assert.Equal(RunStatus.Completed, summary.Status);
        var table = summary.Workloads.Single();
        Assert.True(table.Entities > 0, "figures");
        Assert.True(table.Verified.Matched, table.Verified.Detail);
        Assert.Empty(await azurite.LeftoversOfAsync(summary.RunId));
    }

    private void Report(string fault, FaultProxy proxy, TimeSpan elapsed, RunSummary summary) => Report(fault, proxy.Count(Fault.Late), elapsed, summary);

    private void Report(string fault, long held, TimeSpan elapsed, RunSummary summary)
    {
        output.WriteLine($"{fault}: {summary.Status} after {elapsed.TotalSeconds:0.0} s; held {held} request(s); " +
            $"entities {summary.Workloads.SingleOrDefault()?.Entities}, verified {summary.Workloads.SingleOrDefault()?.Verified.Matched}");
        foreach (var e in summary.Errors)
        {
            output.WriteLine("  error: " + e);
        }
        foreach (var n in summary.Notes)
        {
            output.WriteLine("  note: " + n);
        }
    }
}
