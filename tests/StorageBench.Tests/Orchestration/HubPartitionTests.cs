using System.Reflection;
using CsCheck;
using DurableTask.AzureStorage;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// A handed-back slice is sent to a worker through the partition its instance id lands on (docs/architecture.md, "Placement"):
/// the partition is the provider's own, and a slice's hand-backs go round every partition of a hub of 16 and of its divisors.
/// </summary>
[Trait("Category", "Unit")]
public class HubPartitionTests
{
    /// <summary>The provider's hash, internal to DurableTask.AzureStorage, that its GetControlQueueAsync takes modulo the partition count.</summary>
    private static readonly MethodInfo ProviderHash = typeof(AzureStorageOrchestrationService).Assembly
        .GetType("DurableTask.AzureStorage.Fnv1aHashHelper", throwOnError: true)!
        .GetMethod("ComputeHash", BindingFlags.Public | BindingFlags.Static, [typeof(string)])!;

    [Fact]
    public void AnInstanceIdsPartitionIsTheProvidersOwn() =>
        Gen.String.Sample(id => Assert.Equal((uint)ProviderHash.Invoke(null, [id])!, HubPartitions.Hash(id)));

    [Fact]
    public void AnIdChosenForAPartitionLandsOnItOnAHubOf16AndOnItsRemainderOnAHubOfFewer() =>
        Gen.Select(Gen.String[0, 60], Gen.Int[0, HubPartitions.Most - 1]).Sample((prefix, partition) =>
        {
            string id = HubPartitions.IdOn(prefix, partition);
            Assert.StartsWith(prefix, id);
            Assert.All(new[] { 1, 2, 4, 8, 16 }, count => Assert.Equal(partition % count, HubPartitions.Of(id, count)));
        });

    [Fact]
    public void ASlicesHandBacksGoRoundEveryPartitionWithinAsManyCallsAndSkipTheNeighbouringOne() =>
        Gen.Select(Gen.Int[0, 255], Gen.Int[0, 1000], Gen.Int[0, 4].Select(k => 1 << k)).Sample((slice, first, count) =>
        {
            var order = new SliceOrder("tableInsert", "run", "run-s0", slice, DateTime.UnixEpoch, 0, default);
            var partitions = Enumerable.Range(first + 1, count)
                .Select(n => HubPartitions.Of(HandedBackSlice.InstanceId("run-s0", order with { HandBacks = n }), count)).ToList();
            Assert.Equal(count, partitions.Distinct().Count());
            // The provider's balancing hands a worker neighbouring partitions: the next call goes further.
            Assert.All(partitions.Zip(partitions.Skip(1)), p => Assert.True(count < 16 || (p.Second - p.First + 16) % 16 is not (1 or 15), $"{p}"));
        });
}
