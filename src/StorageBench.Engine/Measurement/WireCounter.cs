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

    public long Sent => Interlocked.Read(ref _sent);

    public override void OnSendingRequest(HttpMessage message) => Interlocked.Increment(ref _sent);

    /// <summary>A request the lean driver sent (it has no pipeline): counted on the same counter as the SDK's.</summary>
    public void Increment() => Interlocked.Increment(ref _sent);
}
