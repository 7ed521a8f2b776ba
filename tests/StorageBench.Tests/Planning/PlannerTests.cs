using StorageBench.Engine.Planning;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads.BlobUpload;
using StorageBench.Engine.Workloads.TableInsert;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

[Trait("Category", "Unit")]
public class PlannerTests
{
    private static readonly DateTime Start = new(2026, 11, 22, 0, 0, 0, DateTimeKind.Utc);

    private static IReadOnlyList<TableSlicePlan> Table(TableInsertSpec spec) => TableInsertRoom.PlanSlices("r1", "r1-s000", "sbtx", spec, new ClientSettings(), Start);

    [Theory]
    [InlineData(10_000, 1, 1)]
    [InlineData(10_001, 3, 16)]
    [InlineData(7, 7, 2)]
    public void SlicesShareEveryEntityExactlyOnce(long entities, int slices, int partitions)
    {
        var plans = Table(new TableInsertSpec { EntityCount = entities, Slices = slices, PartitionCount = partitions });
        Assert.Equal(slices, plans.Count);
        Assert.Equal(entities, plans.Sum(p => p.EntityCount));
        Assert.True(plans.Max(p => p.EntityCount) - plans.Min(p => p.EntityCount) <= 1);
        Assert.All(plans, p => Assert.Equal(Start, p.StartAtUtc));
    }

    [Fact]
    public void MorePartitionsThanSlicesAreSplitWithoutOverlap()
    {
        var plans = Table(new TableInsertSpec { Slices = 4, PartitionCount = 18 });
        var all = plans.SelectMany(p => p.Partitions.Keys()).ToList();
        Assert.Equal(18, all.Count);
        Assert.Equal(18, all.Distinct().Count());
        // Batches go round the slice's own partitions.
        var first = plans[1].Partitions;
        Assert.Equal([Planner.PartitionKey(1), Planner.PartitionKey(5), Planner.PartitionKey(9)], new long[] { 0, 1, 2 }.Select(first.KeyOf));
        Assert.Equal(first.KeyOf(0), first.KeyOf(first.Count));
    }

    [Fact]
    public void APlanStaysSmallWhateverThePartitionCount()
    {
        // 100,000 partitions on one slice: the plan names a range, not 100,000 keys.
        var plan = Table(new TableInsertSpec { Slices = 1, PartitionCount = 100_000 })[0];
        Assert.Equal(100_000, plan.Partitions.Count);
        Assert.True(System.Text.Json.JsonSerializer.Serialize(plan).Length < 2_000);
    }

    [Fact]
    public void FewerPartitionsThanSlicesAreShared()
    {
        // The seeds' 2-3 processes all wrote into one partition.
        var plans = Table(new TableInsertSpec { Slices = 3, PartitionCount = 1 });
        Assert.All(plans, p => Assert.Equal([Planner.PartitionKey(0)], p.Partitions.Keys()));
        Assert.NotEqual(TableInsertSlice.RowKey("aaaaaaaa", 0, 0, 0), TableInsertSlice.RowKey("aaaaaaaa", 1, 0, 0));
        Assert.Equal("aaaaaaaa", TableInsertSlice.AttemptOf(TableInsertSlice.RowKey("aaaaaaaa", 1, 0, 0)));
    }

    [Fact]
    public void BlobSlicesShareEveryBlobAndNamesNeverCollide()
    {
        var plans = BlobUploadRoom.PlanSlices("r1", "r1-s000", "sbbx", new BlobUploadSpec { BlobCount = 10, Slices = 3 }, new ClientSettings(), Start);
        Assert.Equal([4, 3, 3], plans.Select(p => p.BlobCount));
        var names = plans.SelectMany(p => Enumerable.Range(0, p.BlobCount).Select(n => BlobNames.Of("0badf00d", p.SliceIndex, n))).ToList();
        Assert.Equal(10, names.Distinct().Count());
        Assert.All(names, n => Assert.Equal("0badf00d", BlobNames.AttemptOf(n)));
        Assert.Equal("", BlobNames.AttemptOf("someone-elses.txt"));
    }

    [Fact]
    public void TheTargetRateIsSplitAcrossSlices()
    {
        Assert.All(Table(new TableInsertSpec { Slices = 4, TargetOperationsPerSecond = 100 }), p => Assert.Equal(25, p.OperationsPerSecond));
    }

    [Fact]
    public void TargetNamesAreValidStorageNamesAndCarryTheirCreationTime()
    {
        string runId = Planner.NewRunId(Start);
        Assert.True(Planner.IsValidRunId(runId));
        string longest = new('a', Planner.MaxRunIdLength);
        Assert.True(Planner.IsValidRunId(longest));
        Assert.False(Planner.IsValidRunId(longest + "a"));
        Assert.False(Planner.IsValidRunId("Bad/Id"));
        foreach (string id in new[] { runId, longest })
        {
            string step = Planner.StepId(id, 99);
            Assert.Matches("^[A-Za-z][A-Za-z0-9]{2,62}$", Planner.TableName(step, Start));
            Assert.Matches("^[a-z0-9]{3,63}$", Planner.ContainerName(step, Start));
            Assert.True(Planner.TryParseTargetName(Planner.TableName(step, Start.AddSeconds(7)), out var created, out _));
            Assert.Equal(Start.AddSeconds(7), created);
        }
        Assert.False(Planner.TryParseTargetName("StorageBenchRuns", out _, out _));
        Assert.False(Planner.TryParseTargetName("sbtnotadate12345x", out _, out _));
    }
}
