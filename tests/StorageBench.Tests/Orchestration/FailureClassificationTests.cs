using System.Net.Sockets;
using Azure;
using Azure.Identity;
using Microsoft.DurableTask;
using StorageBench.Engine.Cost;
using StorageBench.Engine.StorageCalls;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>The one classification of storage failures outside the measured path, and failure details across the activity boundary.</summary>
[Trait("Category", "EndToEnd")]
[Collection(OrchestrationAzuriteCollection.Name)]
public class FailureClassificationTests(AzuriteFixture azurite)
{
    [Fact]
    public void EachStorageFailureHasAKindAndATextFromItsStatusAndCodeAndABugHasNone()
    {
        using var canceled = new CancellationTokenSource();
        canceled.Cancel();
        var throttled = new RequestFailedException(503, "Service request failed.\nStatus: 503 (Server Busy)\n\nContent: …", "ServerBusy", null);

        Assert.Equal(new StorageFailure(StorageFailureKind.Refused, "503 ServerBusy", 503, "ServerBusy"), StorageFailures.Classify(throttled, default));
        // Azure.Core's network timeout: a TaskCanceledException the caller's token did not cause.
        Assert.Equal(StorageFailureKind.TimedOut, StorageFailures.Classify(new TaskCanceledException("exceeded the configured timeout of 0:00:05"), default)?.Kind);
        Assert.Null(StorageFailures.Classify(new TaskCanceledException(), canceled.Token));
        Assert.Equal(StorageFailureKind.Authentication, StorageFailures.Classify(new AuthenticationFailedException("ManagedIdentityCredential: no identity"), default)?.Kind);
        var refused = new RequestFailedException("Connection refused", new HttpRequestException("Connection refused", new SocketException((int)SocketError.ConnectionRefused)));
        Assert.Equal("network error (ConnectionRefused)", StorageFailures.Classify(refused, default)?.Text);
        Assert.Equal(StorageFailureKind.Unreachable, StorageFailures.Classify(new IOException("reset"), default)?.Kind);
        // SDK retries exhausted: the last try says how it ended.
        Assert.Equal("503 ServerBusy (after 2 tries)", StorageFailures.Classify(new AggregateException(refused, throttled), default)?.Text);
        Assert.Null(StorageFailures.Classify(new InvalidOperationException("a bug"), default));
        Assert.Null(StorageFailures.Classify(new AggregateException(new InvalidOperationException("a bug")), default));
    }

    [Fact]
    public async Task ADeadlineIsATimeoutButTheCallersOwnCancelIsACancel()
    {
        var timedOut = await Assert.ThrowsAsync<StorageCallFailedException>(() =>
            StorageCall.RunAsync("progress", TimeSpan.FromMilliseconds(50), t => Task.Delay(Timeout.Infinite, t), default));
        Assert.Equal("progress: no answer within its 0.05 s deadline", timedOut.Message);
        Assert.Equal(StorageFailureKind.TimedOut, timedOut.Failure.Kind);

        using var caller = new CancellationTokenSource();
        var call = StorageCall.RunAsync("progress", TimeSpan.FromMinutes(1), t => Task.Delay(Timeout.Infinite, t), caller.Token);
        await caller.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => call);
        // A bug is not a storage failure: it is not turned into one.
        await Assert.ThrowsAsync<InvalidOperationException>(() => StorageCall.RunAsync<bool>("progress", TimeSpan.FromMinutes(1), _ => throw new InvalidOperationException(), default));
    }

    [Fact]
    public void IsCausedByChecksTheTypeNotItsName()
    {
        static TaskFailedException Failed(Type type) => new("X", 1, new TaskFailureDetails(type.FullName!, "", null, null, null));
        Assert.True(Failed(typeof(TaskCanceledException)).IsCancellation());
        Assert.True(Failed(typeof(OperationCanceledException)).IsCancellation());
        Assert.False(Failed(typeof(InvalidOperationException)).IsCancellation());
        // A type of another loaded assembly (the engine's) is found; an unknown name is not a cause.
        Assert.True(new TaskFailureDetails(typeof(StorageCallFailedException).FullName!, "", null, null, null).IsCausedBy<Exception>());
        Assert.False(new TaskFailureDetails("No.Such.CanceledException", "", null, null, null).IsCausedBy<OperationCanceledException>());
    }

    /// <summary>
    /// An activity that fails with an inner exception: its type, message, inner failure and stack reach the step's
    /// errors through the replaying host's history, and the log (event 2004) holds the exception itself.
    /// </summary>
    [Fact]
    public async Task AnActivityFailureKeepsItsTypeMessageInnerFailureAndStackInTheStepsErrorsAndTheLog()
    {
        // Storage is never reached: the slice activity fails first, and the verify/delete/store activities are not run against it.
        var target = StorageTarget.FromConnectionString("DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;TableEndpoint=http://127.0.0.1:9/devstoreaccount1;BlobEndpoint=http://127.0.0.1:9/devstoreaccount1");
        var log = new LogCapture();
        // The task hub and results in this Azurite; only the benchmark target is unreachable.
        await using var host = await azurite.NewHubAsync(target, loggers: log.Factory, configure: r =>
        {
            r.AddActivity<object, TargetRequests>(ActivityNames.PrepareTargets, (_, _) => Task.FromResult(new TargetRequests(0, 0)));
            r.AddActivity<object, TargetRequests>(ActivityNames.DeleteTargets, (_, _) => Task.FromResult(new TargetRequests(0, 0)));
            r.AddActivity<Engine.Workloads.SliceOrder, Engine.Measurement.SliceResult>(ActivityNames.RunSlice, (_, _) => CrashingSliceHostAsync());
            foreach (string bookkeeping in new[] { ActivityNames.StoreStep, ActivityNames.StoreRun })
            {
                r.AddActivity<object, bool>(bookkeeping, (_, _) => Task.FromResult(true));
            }
        });

        var summary = await Pipeline.RunAsync(host, """{ "scenario": "crash", "startDelaySeconds": 0, "tableInsert": { "entityCount": 10, "batchSize": 10 } }""");

        string error = Assert.Single(summary.Errors, e => e.StartsWith("tableInsert slice 0: activity RunSlice failed:", StringComparison.Ordinal));
        Assert.Contains("InvalidOperationException: the slice host broke", error);
        Assert.Contains("caused by System.IO.IOException: disk gone", error);
        Assert.Contains($"stack of InvalidOperationException: at {typeof(FailureClassificationTests).FullName}.{nameof(CrashingSliceHostAsync)}", error);
        // In the step's history as the provider stored it: the failure's details, not the exception.
        string stepId = (await HubHistory.ReadAsync(host, summary.RunId)).Single(e => e.Type == DurableTask.Core.History.EventType.SubOrchestrationInstanceCreated).InstanceId!;
        var failed = (await HubHistory.ReadAsync(host, stepId)).Single(e => e.Type == DurableTask.Core.History.EventType.TaskFailed).Raw.GetProperty("FailureDetails");
        Assert.Equal(typeof(InvalidOperationException).FullName, failed.GetProperty("ErrorType").GetString());
        Assert.Equal(typeof(IOException).FullName, failed.GetProperty("InnerFailure").GetProperty("ErrorType").GetString());
        Assert.Contains(nameof(CrashingSliceHostAsync), failed.GetProperty("StackTrace").GetString());

        // The log has it once, as the exception itself: type, message, inner exception and stack.
        var logged = Assert.Single(log.WithId(2004));
        Assert.Equal(Microsoft.Extensions.Logging.LogLevel.Error, logged.Level);
        Assert.StartsWith($"Activity {ActivityNames.RunSlice} of {summary.RunId}-s000 failed", logged.Message);
        var exception = Assert.IsType<InvalidOperationException>(logged.Exception);
        Assert.Equal("the slice host broke", exception.Message);
        Assert.Equal("disk gone", Assert.IsType<IOException>(exception.InnerException).Message);
        Assert.Contains(nameof(CrashingSliceHostAsync), exception.StackTrace);
    }

    private static async Task<Engine.Measurement.SliceResult> CrashingSliceHostAsync()
    {
        await Task.Yield();
        try
        {
            throw new IOException("disk gone");
        }
        catch (IOException inner)
        {
            throw new InvalidOperationException("the slice host broke", inner);
        }
    }
}
