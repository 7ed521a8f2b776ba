using System.Globalization;
using System.Text;

namespace StorageBench.Orchestration;

/// <summary>
/// Which control-queue partition of a task hub an orchestration instance lives on, as the Azure Storage provider decides it:
/// the FNV-1a hash of the instance id's UTF-8 bytes modulo the hub's partition count (DurableTask.AzureStorage's
/// GetControlQueueAsync with its internal Fnv1aHashHelper; HubPartitionTests holds this to the provider's own). The worker
/// that owns a partition runs its instances, so an id chosen for its partition is the one way to send work to that worker.
/// </summary>
public static class HubPartitions
{
    /// <summary>The provider's most partitions of a hub (AzureStorageOrchestrationServiceSettings.PartitionCount: 1 to 16).</summary>
    public const int Most = 16;

    private const uint FnvPrime = 16777619, FnvOffsetBasis = 2166136261;

    /// <summary>The partition of <paramref name="instanceId"/> on a hub of <paramref name="partitionCount"/> partitions.</summary>
    public static int Of(string instanceId, int partitionCount) => (int)(Hash(instanceId) % (uint)partitionCount);

    /// <summary>The provider's hash of an instance id.</summary>
    public static uint Hash(string instanceId)
    {
        uint hash = FnvOffsetBasis;
        foreach (byte b in Encoding.UTF8.GetBytes(instanceId))
        {
            hash = unchecked((hash ^ b) * FnvPrime);
        }
        return hash;
    }

    /// <summary>
    /// <paramref name="prefix"/> and the first number after it that puts the id on <paramref name="partition"/> of <see cref="Most"/>
    /// partitions. A count that divides 16 (1, 2, 4, 8: the provider's default is 4) sees partition mod its count, so ids that go
    /// round 16 partitions go round any such hub's; another count sees them spread as any id.
    /// </summary>
    public static string IdOn(string prefix, int partition)
    {
        int target = ((partition % Most) + Most) % Most;
        for (int n = 0; ; n++)
        {
            string id = prefix + n.ToString(CultureInfo.InvariantCulture);
            if (Of(id, Most) == target)
            {
                return id;
            }
        }
    }
}
