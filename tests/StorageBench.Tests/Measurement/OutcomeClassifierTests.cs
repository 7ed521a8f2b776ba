using System.Net.Sockets;
using Azure;
using StorageBench.Engine.Measurement;

namespace StorageBench.Tests;

[Trait("Category", "Unit")]
public class OutcomeClassifierTests
{
    public static TheoryData<Exception, Outcome> Cases => new()
    {
        { new RequestFailedException(503, "busy", "ServerBusy", null), Outcome.Throttled },
        { new RequestFailedException(500, "slow", "OperationTimedOut", null), Outcome.Throttled },
        { new RequestFailedException(500, "boom", "InternalError", null), Outcome.ServerError },
        { new RequestFailedException(409, "exists", "EntityAlreadyExists", null), Outcome.ClientError },
        { new RequestFailedException(0, "io", null, new HttpRequestException("reset")), Outcome.NetworkError },
        { new TaskCanceledException("client timeout"), Outcome.TimedOut },
        { new SocketException(), Outcome.NetworkError },
        // SDK retries exhausted: every attempt is wrapped, the last one decides.
        { new AggregateException("Retry failed after 3 tries", new HttpRequestException("reset"), new TaskCanceledException("timeout"), new TaskCanceledException("timeout")), Outcome.TimedOut },
        { new AggregateException(new RequestFailedException(503, "busy", "ServerBusy", null), new RequestFailedException(503, "busy", "ServerBusy", null)), Outcome.Throttled },
    };

    [Theory]
    [MemberData(nameof(Cases))]
    public void MapsStorageFailuresToOutcomes(Exception ex, Outcome expected) =>
        Assert.Equal(expected, OutcomeClassifier.Classify(ex, CancellationToken.None));

    [Fact]
    public void CancellationOfTheRunIsNotATimeoutAndBugsAreNotOutcomes()
    {
        using var cts = new CancellationTokenSource();
        cts.Cancel();
        Assert.Null(OutcomeClassifier.Classify(new OperationCanceledException(cts.Token), cts.Token));
#pragma warning disable CA2201 // the runtime's own exception, as a bug in the code would throw it
        Assert.Null(OutcomeClassifier.Classify(new NullReferenceException(), CancellationToken.None));
#pragma warning restore CA2201
    }
}
