using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

public class PlannerTests
{
    private static readonly DateTime Start = new(2026, 11, 22, 0, 0, 0, DateTimeKind.Utc);

    [Theory]
    [InlineData(10_000, 1, 1)]
    [InlineData(10_001, 3, 16)]
    [InlineData(7, 7, 2)]
    public void SlicesShareEveryEntityExactlyOnce(long entities, int slices, int partitions)
    {
        var plans = Planner.PlanTable("r1", new TableInsertSpec { EntityCount = entities, Slices = slices, PartitionCount = partitions }, new ClientSettings(), Start);
        Assert.Equal(slices, plans.Count);
        Assert.Equal(entities, plans.Sum(p => p.EntityCount));
        Assert.True(plans.Max(p => p.EntityCount) - plans.Min(p => p.EntityCount) <= 1);
        Assert.All(plans, p => Assert.Equal(Start, p.StartAtUtc));
    }

    [Fact]
    public void MorePartitionsThanSlicesAreSplitWithoutOverlap()
    {
        var plans = Planner.PlanTable("r1", new TableInsertSpec { Slices = 4, PartitionCount = 16 }, new ClientSettings(), Start);
        var all = plans.SelectMany(p => p.PartitionKeys).ToList();
        Assert.Equal(16, all.Count);
        Assert.Equal(16, all.Distinct().Count());
    }

    [Fact]
    public void FewerPartitionsThanSlicesAreShared()
    {
        // The seeds' 2-3 processes all wrote into one partition.
        var plans = Planner.PlanTable("r1", new TableInsertSpec { Slices = 3, PartitionCount = 1 }, new ClientSettings(), Start);
        Assert.All(plans, p => Assert.Equal([Planner.PartitionKey(0)], p.PartitionKeys));
        Assert.NotEqual(TableInsertWorkload.RowKey(0, 0, 0), TableInsertWorkload.RowKey(1, 0, 0));
    }

    [Fact]
    public void BlobSlicesShareEveryBlobAndNamesNeverCollide()
    {
        var plans = Planner.PlanBlob("r1", new BlobUploadSpec { BlobCount = 10, Slices = 3 }, new ClientSettings(), Start);
        Assert.Equal([4, 3, 3], plans.Select(p => p.BlobCount));
        var names = plans.SelectMany(p => Enumerable.Range(0, p.BlobCount).Select(n => BlobUploadWorkload.BlobName(p.SliceIndex, n))).ToList();
        Assert.Equal(10, names.Distinct().Count());
        Assert.All(plans, p => Assert.Equal(p.SliceIndex, BlobUploadWorkload.SliceOf(BlobUploadWorkload.BlobName(p.SliceIndex, 0))));
    }

    [Fact]
    public void TheTargetRateIsSplitAcrossSlices()
    {
        var plans = Planner.PlanTable("r1", new TableInsertSpec { Slices = 4, TargetOperationsPerSecond = 100 }, new ClientSettings(), Start);
        Assert.All(plans, p => Assert.Equal(25, p.OperationsPerSecond));
    }

    [Fact]
    public void TargetNamesAreValidStorageNames()
    {
        string runId = Planner.NewRunId(Start);
        Assert.True(Planner.IsValidRunId(runId));
        Assert.Matches("^[A-Za-z][A-Za-z0-9]{2,62}$", Planner.TableName(runId));
        Assert.Matches("^[a-z0-9]{3,63}$", Planner.ContainerName(runId));
        Assert.False(Planner.IsValidRunId("Bad/Id"));
    }
}
