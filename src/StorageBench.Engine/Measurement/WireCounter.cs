using Azure.Core;
using Azure.Core.Pipeline;

namespace StorageBench.Engine.Measurement;

/// <summary>
/// Counts the HTTP requests a storage client sends, each retry included (it sits in the pipeline's
/// per-retry stage). One increment of a long per request: nothing allocated on the hot path.
/// </summary>
public sealed class WireCounter : HttpPipelineSynchronousPolicy
{
    private long _sent;
    private string? _server;

    public long Sent => Interlocked.Read(ref _sent);

    /// <summary>The first response's Server header (Azurite names its version there, e.g. "Azurite-Table/3.35.0"); null before any.</summary>
    public string? Server => Volatile.Read(ref _server);

    public override void OnSendingRequest(HttpMessage message) => Interlocked.Increment(ref _sent);

    /// <summary>A request the lean driver sent (it has no pipeline): counted on the same counter as the SDK's.</summary>
    public void Increment() => Interlocked.Increment(ref _sent);

    // Read once: after the first response this is one null check, nothing allocated.
    public override void OnReceivedResponse(HttpMessage message)
    {
        if (Volatile.Read(ref _server) is null && message.HasResponse && message.Response.Headers.TryGetValue("Server", out var server))
        {
            Volatile.Write(ref _server, server);
        }
    }
}
