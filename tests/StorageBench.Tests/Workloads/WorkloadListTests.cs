using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads.TableInsert;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>
/// Every workload is a room in one list, and what the rest of the tool derives from the list stays apart per room: its
/// spec section is the JSON property of its name, its results columns and its table or container never meet another's,
/// and its plan crosses the orchestration boundary and comes back whole.
/// </summary>
[Trait("Category", "Unit")]
public class WorkloadListTests
{
    public static TheoryData<string> Names => [.. WorkloadList.All.Select(w => w.Name)];

    [Theory]
    [MemberData(nameof(Names))]
    public void ItsSpecSectionIsTheJsonPropertyOfItsNameAndValidatesByItsDefaults(string name)
    {
        var room = WorkloadList.Of(name);
        var (spec, errors) = RunSpecParser.Parse($$"""{ "scenario": "room", "{{name}}": {} }""");

        Assert.Empty(errors);
        Assert.NotNull(room.SectionOf(spec!));
        Assert.Equal([name], WorkloadList.In(spec!).Select(w => w.Room.Name));
        Assert.Empty(RunSpecValidator.Validate(spec!));
        Assert.All(WorkloadList.All.Where(w => w != room), other => Assert.Null(other.SectionOf(spec!)));
    }

    [Theory]
    [MemberData(nameof(Names))]
    public void EveryKnobItReportsCanBeSweptAndSearchedByItsPath(string name)
    {
        var room = WorkloadList.Of(name);
        var spec = RunSpecParser.Parse($$"""{ "scenario": "room", "{{name}}": {} }""").Spec!;
        var knobs = room.Parameters(room.SectionOf(spec)!).ToList();

        Assert.NotEmpty(knobs);
        // The numeric ones (an operation or a switch is not swept), each at its own value, so the variant is valid whatever
        // the field's rules: what is tested is that the path reaches it.
        foreach (var (knob, v) in knobs.Select(k => (k.Name, Value: double.TryParse(k.Value, System.Globalization.CultureInfo.InvariantCulture, out double d) ? d : double.NaN))
            .Where(k => !double.IsNaN(k.Value)))
        {
            Assert.Empty(SpecVariants.Validate(spec, "sweep", $"{name}.{knob}", [v]));
            Assert.Equal(room.SectionOf(spec), room.SectionOf(SpecVariants.Apply(spec, $"{name}.{knob}", v)));
        }
    }

    [Fact]
    public void NamesColumnsAndTargetsNeverMeet()
    {
        Assert.Equal(WorkloadList.All.Count, WorkloadList.All.Select(w => w.Name).Distinct().Count());
        // Every figure's column, over every workload: none is another's.
        var columns = WorkloadKind.All.Select(WorkloadColumns.Of).SelectMany(c => typeof(WorkloadColumns).GetProperties(System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.Instance).Select(p => (string)p.GetValue(c)!)).ToList();
        Assert.Equal(columns.Count, columns.Distinct(StringComparer.Ordinal).Count());
        // Workloads of one service each have their own table or container in a step.
        Assert.All(WorkloadList.All.GroupBy(w => w.Service), service => Assert.Equal(service.Count(), service.Select(w => w.TargetSuffix).Distinct().Count()));
    }

    [Fact]
    public void ASliceOrderCarriesItsRoomsPlanAcrossTheBoundaryWhole()
    {
        var (spec, _) = RunSpecParser.Parse("""{ "scenario": "room", "tableInsert": { "slices": 3, "entityCount": 10 } }""");
        var start = new DateTime(2026, 11, 26, 7, 0, 0, DateTimeKind.Utc);
        var orders = TableInsertRoom.Instance.Plan(new StepPlan("run1", "run1-s000", "sbtname", start, TargetAccounts: 2), spec!);

        var wire = System.Text.Json.JsonSerializer.Serialize(orders[2], Workload.Json);
        var back = System.Text.Json.JsonSerializer.Deserialize<SliceOrder>(wire, Workload.Json)!;
        var plan = TableInsertRoom.Instance.Unpack(back);

        Assert.Equal(("tableInsert", "run1", "run1-s000", 2, start, 0), (back.Workload, back.RunId, back.StepId, back.SliceIndex, back.StartAtUtc, back.TargetIndex));
        Assert.Equal(TableInsertRoom.PlanSlices("run1", "run1-s000", "sbtname", spec!.TableInsert!, spec.Client, start, 2)[2], plan);
    }
}
