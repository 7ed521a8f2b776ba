using System.Net.Sockets;
using Azure;
using Azure.Identity;
using StorageBench.Engine.Cost;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.StorageCalls;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;
using StorageBench.Orchestration.Hosting;

namespace StorageBench.Tests;

/// <summary>The one classification of storage failures outside the measured path, and failure details across the activity boundary.</summary>
[Trait("Category", "EndToEnd")]
public class FailureClassificationTests
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
        Assert.True(new FailureDetails(typeof(TaskCanceledException).FullName!, "", null, null).IsCausedBy<OperationCanceledException>());
        Assert.True(new ActivityFailedException("activity X", typeof(OperationCanceledException).FullName!, "stopped").IsCancellation);
        Assert.False(new ActivityFailedException("activity X", typeof(InvalidOperationException).FullName!, "broken").IsCancellation);
        // A type of another loaded assembly (the engine's) is found; an unknown name is not a cause.
        Assert.True(new FailureDetails(typeof(StorageCallFailedException).FullName!, "", null, null).IsCausedBy<Exception>());
        Assert.False(new FailureDetails("No.Such.CanceledException", "", null, null).IsCausedBy<OperationCanceledException>());
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
        using var results = new ResultsTableStore(target);
        var log = new LogCapture();
        var host = BenchmarkHost.Create(target, results, TimeProvider.System, loggers: log.Factory);
        host.ReplaceActivity<object, TargetRequests>(ActivityNames.PrepareTargets, (_, _) => Task.FromResult(new TargetRequests(0, 0)));
        host.ReplaceActivity<object, TargetRequests>(ActivityNames.DeleteTargets, (_, _) => Task.FromResult(new TargetRequests(0, 0)));
        host.ReplaceActivity<Engine.Planning.TableSlicePlan, Engine.Measurement.SliceResult>(ActivityNames.RunTableSlice, (_, _) => CrashingSliceHostAsync());
        foreach (string bookkeeping in new[] { ActivityNames.StoreStep, ActivityNames.StoreRun })
        {
            host.ReplaceActivity<object, bool>(bookkeeping, (_, _) => Task.FromResult(true));
        }

        var summary = await Pipeline.RunAsync(host, """{ "scenario": "crash", "startDelaySeconds": 0, "tableInsert": { "entityCount": 10, "batchSize": 10 } }""");

        string error = Assert.Single(summary.Errors, e => e.StartsWith("tableInsert slice 0: activity RunTableSlice failed:", StringComparison.Ordinal));
        Assert.Contains("InvalidOperationException: the slice host broke", error);
        Assert.Contains("caused by System.IO.IOException: disk gone", error);
        Assert.Contains($"stack of InvalidOperationException: at {typeof(FailureClassificationTests).FullName}.{nameof(CrashingSliceHostAsync)}", error);
        var failed = host.GetHistory(host.GetHistory(summary.RunId).OfType<SubOrchestrationCreated>().Single().InstanceId).OfType<TaskFailed>().Single();
        Assert.Equal(typeof(InvalidOperationException).FullName, failed.Failure.ErrorType);
        Assert.Equal(typeof(IOException).FullName, failed.Failure.InnerFailure?.ErrorType);
        Assert.Contains(nameof(CrashingSliceHostAsync), failed.Failure.StackTrace);

        // The log has it once, as the exception itself: type, message, inner exception and stack.
        var logged = Assert.Single(log.WithId(2004));
        Assert.Equal(Microsoft.Extensions.Logging.LogLevel.Error, logged.Level);
        Assert.StartsWith($"Activity {ActivityNames.RunTableSlice} of {summary.RunId}-s000 failed", logged.Message);
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
