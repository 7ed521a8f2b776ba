using System.Net.Sockets;
using Azure;
using Azure.Identity;

namespace StorageBench.Engine.Measurement;

/// <summary>How one storage request ended. Every kind is counted; none is retried away unless the spec asks for SDK retries.</summary>
public enum Outcome
{
    Succeeded,
    /// <summary>The service pushed back: 503 ServerBusy, or 500 OperationTimedOut.</summary>
    Throttled,
    /// <summary>The client gave up waiting (request timeout).</summary>
    TimedOut,
    ServerError,
    ClientError,
    NetworkError,
}

public static class OutcomeClassifier
{
    /// <summary>Maps an exception from a storage call to an outcome; null for exceptions that are bugs, not results.</summary>
    public static Outcome? Classify(Exception ex, CancellationToken runToken)
    {
        switch (ex)
        {
            case RequestFailedException rfe when rfe.Status == 503:
            case RequestFailedException { Status: 500, ErrorCode: "OperationTimedOut" }:
                return Outcome.Throttled;
            case RequestFailedException { Status: >= 500 }:
                return Outcome.ServerError;
            case RequestFailedException { Status: >= 400 }:
                return Outcome.ClientError;
            case RequestFailedException { Status: 0, InnerException: { } inner }:
                return Classify(inner, runToken) ?? Outcome.NetworkError;
            case RequestFailedException:
                return Outcome.NetworkError;
            // The credential (managed identity, DefaultAzureCredential) got no token: the request was never sent, and never will be accepted.
            case AuthenticationFailedException:
                return Outcome.ClientError;
            case OperationCanceledException when !runToken.IsCancellationRequested:
            case TimeoutException:
                return Outcome.TimedOut;
            case HttpRequestException or IOException or SocketException:
                return Outcome.NetworkError;
            // SDK retries exhausted: "Retry failed after N tries" wraps every attempt; the last one is the outcome.
            case AggregateException { InnerExceptions.Count: > 0 } agg:
                return Classify(agg.InnerExceptions[^1], runToken);
            default:
                return null;
        }
    }
}
