using Azure.Data.Tables;
using DurableTask.Core.Exceptions;
using DurableTask.Core;
using Microsoft.DurableTask.Worker.Shims;
using Microsoft.DurableTask.Worker;
using Microsoft.Extensions.Logging.Abstractions;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads.TableInsert;
using StorageBench.Functions;
using StorageBench.Orchestration.Activities;
using StorageBench.Orchestration;
using StorageBench.TaskHub;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// A host's shutdown is not a cancel (issue 36), at both hosts' activity entry points: the Function App's
/// <see cref="ActivityFunctions"/> (its invocation token is the host's shutdown) and the local task hub's activity as its
/// DurableTask.Core dispatcher runs it (the worker's stopping token). A slice stopped that way while its run has no cancel
/// signal hands back no figures (the Functions host and the local hub then abandon the work item, and Durable runs the
/// slice again); with the run's cancel signal present it hands back what it measured, as a canceled slice does.
/// Each slice is stopped once it has stored entities, so what is asserted does not depend on how fast the machine is.
/// </summary>
[Trait("Category", "Azurite")]
[Collection(OrchestrationAzuriteCollection.Name)]
public class HostShutdownTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    [Fact]
    public async Task AFunctionAppSliceStoppedByItsHostWithoutACancelSignalHandsBackNoFiguresAndRunsAgainAsARerun()
    {
        var (plan, table) = await NewSliceAsync();
        var log = new LogCapture();
        var functions = new ActivityFunctions(new BenchmarkActivities([azurite.Target], azurite.Results, TimeProvider.System, loggers: log.Factory));
        using var host = new CancellationTokenSource();

        var slice = functions.RunSlice(TableInsertRoom.Instance.Pack(plan), new TestFunctionContext(host.Token));
        await StopWhenStoredAsync(table, host);

        var stopped = await Assert.ThrowsAsync<HostStoppingException>(() => slice.WaitAsync(TimeSpan.FromMinutes(2)));
        output.WriteLine(stopped.Message);
        Assert.Contains(log.WithId(2006), e => e.Message.StartsWith($"Slice 0 of {plan.StepId} stopped by its host's shutdown", StringComparison.Ordinal));

        // Durable runs it again: that execution says it is a re-run, and only its own writes are counted.
        var again = await functions.RunSlice(TableInsertRoom.Instance.Pack(plan with { Workload = plan.Workload with { DurationSeconds = 1 }, StartAtUtc = DateTime.UtcNow }),
            new TestFunctionContext(CancellationToken.None)).WaitAsync(TimeSpan.FromMinutes(2)) is { Result: { } ran } ? ran : throw new Xunit.Sdk.XunitException("refused");
        Assert.False(again.Canceled);
        Assert.Contains(again.Notes, n => n.StartsWith("re-run: an earlier execution on worker ", StringComparison.Ordinal));
        var verified = await TableInsertGroundTruth.VerifyTableAsync([azurite.Target], table, [again.AttemptId], again.Units + again.WarmupUnits, default);
        Assert.True(verified.Matched, verified.Detail);
        await azurite.Tables.DeleteTableAsync(table);
    }

    [Fact]
    public async Task AFunctionAppSliceStoppedByItsHostWhileTheRunIsCanceledHandsBackItsFigures()
    {
        var (plan, table) = await NewSliceAsync();
        var functions = new ActivityFunctions(new BenchmarkActivities([azurite.Target], azurite.Results, TimeProvider.System));
        using var host = new CancellationTokenSource();

        var slice = functions.RunSlice(TableInsertRoom.Instance.Pack(plan), new TestFunctionContext(host.Token));
        await StopWhenStoredAsync(table, host, cancelRun: plan.RunId);

        var result = (await slice.WaitAsync(TimeSpan.FromMinutes(2))).Result!;
        output.WriteLine($"canceled run, host stopped: {result.Units} entities, canceled {result.Canceled}");
        Assert.True(result.Canceled);
        Assert.True(result.Units > 0, "the slice hands back what it stored");
        await azurite.Tables.DeleteTableAsync(table);
    }

    [Fact]
    public async Task ALocalHubSliceStoppedByItsWorkerWithoutACancelSignalIsAbandonedNotCompleted()
    {
        var (plan, table) = await NewSliceAsync();
        using var stopping = new CancellationTokenSource();
        var activity = LocalActivity(stopping.Token);

        var slice = activity.RunAsync(Context(plan), new PayloadConverter().Serialize(TableInsertRoom.Instance.Pack(plan)));
        await StopWhenStoredAsync(table, stopping);

        // SessionAbortedException is what DurableTask.Core's dispatcher abandons a work item on (no TaskCompleted, no TaskFailed).
        var aborted = await Assert.ThrowsAsync<SessionAbortedException>(() => slice.WaitAsync(TimeSpan.FromMinutes(2)));
        Assert.IsType<HostStoppingException>(aborted.InnerException);
        await azurite.Tables.DeleteTableAsync(table);
    }

    [Fact]
    public async Task ALocalHubSliceStoppedByItsWorkerWhileTheRunIsCanceledHandsBackItsFigures()
    {
        var (plan, table) = await NewSliceAsync();
        using var stopping = new CancellationTokenSource();
        var activity = LocalActivity(stopping.Token);

        var slice = activity.RunAsync(Context(plan), new PayloadConverter().Serialize(TableInsertRoom.Instance.Pack(plan)));
        await StopWhenStoredAsync(table, stopping, cancelRun: plan.RunId);

        string? output = await slice.WaitAsync(TimeSpan.FromMinutes(2));
        var result = ((SliceOutcome)new PayloadConverter().Deserialize(output, typeof(SliceOutcome))!).Result!;
        Assert.True(result.Canceled);
        Assert.True(result.Units > 0, "the slice hands back what it stored");
        await azurite.Tables.DeleteTableAsync(table);
    }

    /// <summary>A 60-s slice (stopped long before its end) on a table of its own.</summary>
    private async Task<(TableSlicePlan Plan, string Table)> NewSliceAsync()
    {
        var step = TestStep.New();
        await azurite.Tables.CreateTableAsync(step.TableName);
        var spec = RunSpecParser.ParseOrThrow("""
            { "scenario": "host-shutdown", "startDelaySeconds": 0, "client": { "primeRounds": 0 },
              "tableInsert": { "entitySizeBytes": 128, "batchSize": 10, "concurrency": 2, "durationSeconds": 60 } }
            """);
        return (step.Table(spec.TableInsert!, spec.Client).Single(), step.TableName);
    }

    /// <summary>
    /// Once the slice has stored entities: the run's cancel signal (when given), then the host's shutdown. The signal comes
    /// first, as a cancel racing a shutdown would; the slice may see either first, and must hand back its figures both ways.
    /// </summary>
    private async Task StopWhenStoredAsync(string table, CancellationTokenSource host, string? cancelRun = null)
    {
        var client = azurite.Tables.GetTableClient(table);
        var deadline = DateTime.UtcNow.AddMinutes(2);
        while (!await AnyAsync(client))
        {
            Assert.True(DateTime.UtcNow < deadline, "the slice stored nothing within 2 minutes");
            await Task.Delay(100);
        }
        if (cancelRun is not null)
        {
            await azurite.Results.RequestCancelAsync(cancelRun, default);
        }
        await host.CancelAsync();
    }

    private static async Task<bool> AnyAsync(TableClient table)
    {
        await foreach (var _ in table.QueryAsync<TableEntity>(maxPerPage: 1, select: ["PartitionKey"]))
        {
            return true;
        }
        return false;
    }

    /// <summary>The local hub's RunSlice activity as its worker creates it: the registry's, through durabletask-dotnet's shims.</summary>
    private TaskActivity LocalActivity(CancellationToken stopping)
    {
        var registry = BenchmarkTaskHub.Registry(new BenchmarkActivities([azurite.Target], azurite.Results, TimeProvider.System));
        var shims = new DurableTaskShimFactory(new DurableTaskWorkerOptions { DataConverter = new PayloadConverter() }, NullLoggerFactory.Instance);
        return registry.ActivityCreators(shims, stopping).Single(c => c.Name == ActivityNames.RunSlice).Create();
    }

    private static TaskContext Context(TableSlicePlan plan) =>
        new(new OrchestrationInstance { InstanceId = plan.StepId, ExecutionId = Guid.NewGuid().ToString("N") }, ActivityNames.RunSlice, "", 0);
}
