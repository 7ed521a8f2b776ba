namespace StorageBench.Orchestration;

/// <summary>
/// The links a started run's answer carries: its status (also the Location header), cancel and report. Every route of the
/// Function App needs a function key, so when the caller sent one (<c>x-functions-key</c> or <c>?code=</c>) each link
/// carries it as <c>?code=</c>, as the links of Durable's own CreateCheckStatusResponse carry the key of its webhooks:
/// a link followed as returned then works. `storagebench serve` has no keys, and its links carry none.
/// </summary>
/// <remarks>Not a record: its text must never show the key (nothing here is logged).</remarks>
public sealed class RunLinks(Uri baseUri, string? key = null)
{
    /// <summary>The query parameter the Functions host reads a function key from (its header is x-functions-key).</summary>
    public const string KeyQuery = "code";

    public string Status(string runId) => Link($"api/runs/{runId}");

    public string Cancel(string runId) => Link($"api/runs/{runId}/cancel");

    public string Report(string runId) => Link($"api/runs/{runId}/report");

    private string Link(string path)
    {
        string uri = new Uri(baseUri, path).ToString();
        return key is { Length: > 0 } k ? $"{uri}?{KeyQuery}={Uri.EscapeDataString(k)}" : uri;
    }
}
