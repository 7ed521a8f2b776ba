using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>A fixed count written beside durationSeconds is not used by the timed run: said in one line, never ignored without a word.</summary>
[Trait("Category", "Unit")]
public class UnusedCountTests
{
    [Fact]
    public void EveryRoomsCountBesideADurationIsNamedAndNeverWithoutOne()
    {
        Assert.All(WorkloadList.All, room =>
        {
            string Spec(string duration) => $$"""{ "scenario": "s", "{{room.Name}}": { "{{room.CountField}}": 5000{{duration}} } }""";

            Assert.Equal([$"{room.Name}.{room.CountField} 5000 is not used: durationSeconds 12.5 runs the workload for a time, not a count"],
                RunSpecParser.UnusedCounts(Spec(""", "durationSeconds": 12.5""")));
            Assert.Empty(RunSpecParser.UnusedCounts(Spec(""", "durationSeconds": 0""")));
            Assert.Empty(RunSpecParser.UnusedCounts(Spec("")));
        });
        Assert.Empty(RunSpecParser.UnusedCounts("""{ "scenario": "s", "tableInsert": { "durationSeconds": 10 } }"""));
        Assert.Empty(RunSpecParser.UnusedCounts("not json"));
    }
}
