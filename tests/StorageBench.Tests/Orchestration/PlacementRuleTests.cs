using CsCheck;
using StorageBench.Engine.Spec;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>The placement's one rule and its spec field, without a hub: what the cap is, and what a spec may ask for.</summary>
[Trait("Category", "Unit")]
public class PlacementRuleTests
{
    [Fact]
    public void WithoutAPlacementNoWorkerGetsMoreThanItsEvenShareAndTheWorkersCanTakeEverySlice() =>
        Gen.Select(Gen.Int[1, ServiceLimits.MaxSlices], Gen.Int[2, 64]).Sample((slices, workers) =>
        {
            int cap = SlicePlacement.Cap(null, slices, workers)!.Value;
            Assert.Equal((int)Math.Ceiling(slices / (double)workers), cap);
            Assert.True(cap * workers >= slices);
        });

    [Fact]
    public void ALoneWorkerOrAnUnregisteredHostHasNoCapAndAPlacementIsItsOwnCap()
    {
        Gen.Int[1, ServiceLimits.MaxSlices].Sample(slices =>
        {
            Assert.Null(SlicePlacement.Cap(null, slices, 0));
            Assert.Null(SlicePlacement.Cap(null, slices, 1));
        });
        Gen.Select(Gen.Int[1, ServiceLimits.MaxSlices], Gen.Int[1, ServiceLimits.MaxSlices], Gen.Int[0, 64]).Sample((n, slices, workers) =>
            Assert.Equal(n, SlicePlacement.Cap(new PlacementSpec { SlicesPerWorker = n }, slices, workers)));
    }

    [Fact]
    public void SlicesPerWorkerOutsideOneTo256IsRefusedWithFieldValueAndRule() =>
        Gen.Int.Sample(n =>
        {
            var (spec, errors) = RunSpecParser.Parse($$"""{ "scenario": "s", "placement": { "slicesPerWorker": {{n}} }, "tableInsert": {} }""");
            if (n is >= 1 and <= ServiceLimits.MaxSlices)
            {
                Assert.Equal(n, spec!.Placement!.SlicesPerWorker);
                return;
            }
            var e = Assert.Single(errors);
            Assert.Equal($"placement.slicesPerWorker: {n} must be between 1 and 256 (slices of a step one worker runs at once)", e.ToString());
        });

    [Fact]
    public void SliceIndexesAreNamedAsRuns() =>
        Assert.Equal("0-2, 5, 7-8", SlicePlacement.Ranges([8, 0, 1, 2, 5, 7]));
}
