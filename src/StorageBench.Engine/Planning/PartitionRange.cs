namespace StorageBench.Engine.Planning;

/// <summary>The partitions a slice writes: Count keys starting at index First, Stride apart. Batch b goes to the (b mod Count)-th.</summary>
public sealed record PartitionRange(int First, int Stride, int Count)
{
    public string KeyOf(long batch) => Planner.PartitionKey(First + (int)(batch % Count) * Stride);

    public IEnumerable<string> Keys() => Enumerable.Range(0, Count).Select(i => Planner.PartitionKey(First + i * Stride));
}
