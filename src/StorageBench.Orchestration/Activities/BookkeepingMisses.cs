namespace StorageBench.Orchestration.Activities;

/// <summary>A slice's bookkeeping calls that failed, by kind: how often and the last reason, one line each in the slice's notes.</summary>
internal sealed class BookkeepingMisses
{
    private readonly Dictionary<string, (int Count, string Last)> _byKind = [];

    public void Add(string kind, string reason)
    {
        lock (_byKind)
        {
            _byKind[kind] = (_byKind.GetValueOrDefault(kind).Count + 1, reason);
        }
    }

    public IReadOnlyList<string> Lines()
    {
        lock (_byKind)
        {
            // "kind: detail" (the kind has no ": "), so the step can put the same kind of every slice on one line.
            return [.. _byKind.Select(k => k.Value.Count == 1 ? $"{k.Key}: {k.Value.Last}" : $"{k.Key}: {k.Value.Count} times, last {k.Value.Last}")];
        }
    }
}
