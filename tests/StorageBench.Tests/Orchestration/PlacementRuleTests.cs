using CsCheck;
using StorageBench.Engine.Spec;
using StorageBench.Orchestration;
using StorageBench.Orchestration.Activities;

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
    public void AWorkerStartsAtMostItsCapOfAStepsSlicesWhileAReRunMayTakeAFreedSeat() =>
        Gen.Select(Gen.Int[1, 8], Gen.Int[0, 40].Array[1, 40]).Sample((cap, takes) =>
        {
            var seats = new WorkerSeats("w");
            var held = new List<WorkerSeats.Seat>();
            var started = new HashSet<int>();
            foreach (int slice in takes)
            {
                // Every other take ends a running slice first: its seat frees, but only for a re-run.
                if (slice % 2 == 0 && held.Count > 0)
                {
                    held[0].Dispose();
                    held.RemoveAt(0);
                }
                if (seats.TryTake("step", "tableInsert", slice, cap) is { } seat)
                {
                    held.Add(seat);
                    started.Add(slice);
                }
                Assert.True(seats.Running("step", "tableInsert") <= cap);
            }
            Assert.True(started.Count <= cap, $"{started.Count} slices started under a cap of {cap}");
            Assert.Equal(started.Count >= cap, seats.Spent("step", "tableInsert", cap));
            int running = seats.Running("step", "tableInsert");
            Assert.Equal(running < cap, seats.TryTake("step", "tableInsert", 1000, cap, rerun: true) is not null);
        });

    [Fact]
    public void HandBacksWaitLongerUpToTwoSecondsSoASliceMakesABoundedNumberOfCallsInAWindow() =>
        Gen.Int[0, 600_000].Sample(ms =>
        {
            var window = TimeSpan.FromMilliseconds(ms);
            int calls = SlicePlacement.MaxHandBacks(window);
            var spent = Enumerable.Range(1, calls).Aggregate(TimeSpan.Zero, (t, n) => t + SlicePlacement.HandBackPause(n));
            Assert.True(spent <= window && spent + SlicePlacement.HandBackPause(calls + 1) > window, $"{calls} calls in {window}");
            Assert.True(calls <= 2 + ms / 2000.0, $"{calls} calls in {window}");
        });

    [Fact]
    public void EveryHandBackOfASliceIsCalledUnderAnInstanceIdOfItsOwn() =>
        Gen.Select(Gen.Int[0, 255], Gen.Int[1, 100]).Sample((slice, handBacks) =>
        {
            var order = new StorageBench.Engine.Workloads.SliceOrder("tableInsert", "run", "run-s0", slice, DateTime.UnixEpoch, 0, default);
            var ids = Enumerable.Range(1, handBacks).Select(n => HandedBackSlice.InstanceId("run-s0", order with { HandBacks = n })).ToList();
            Assert.Equal(handBacks, ids.Distinct().Count());
            Assert.All(ids, id => Assert.StartsWith("run-s0-tableInsert-s", id));
        });

    [Fact]
    public void WorkersAHandedBackSliceCannotReachAreNamedAsTheCauseWithThePartitionsCureNeverTheStartDelay() =>
        // Measured: 8 workers on a hub of 4 partitions, 8 slices one per worker; the line blamed startDelaySeconds.
        Gen.Select(Gen.Int[2, 64], Gen.Int[1, 4], Gen.Int[1, HubPartitions.Most], Gen.Int[0, 8]).Sample((slices, n, partitions, extra) =>
        {
            int needed = (slices + n - 1) / n;
            var workers = Enumerable.Range(0, needed + extra).Select(w => $"vm/{w}").ToList();
            var orders = Enumerable.Range(0, slices).Select(i => new StorageBench.Engine.Workloads.SliceOrder("tableInsert", "run", "run-s0", i, DateTime.UnixEpoch, 0, default)).ToList();
            string line = SlicePlacement.Unmet(new PlacementSpec { SlicesPerWorker = n }, orders, [0], workers, partitions);
            if (partitions >= needed)
            {
                Assert.DoesNotContain("partitions", line);
                return;
            }
            Assert.Contains($"Cause: the hub has {partitions} control-queue partitions for {workers.Count} workers", line);
            Assert.Contains($"placement.slicesPerWorker {(slices + partitions - 1) / partitions}, so that {partitions} workers can hold them", line);
            Assert.Equal(partitions < HubPartitions.Most, line.Contains("partitionCount", StringComparison.Ordinal));
            Assert.DoesNotContain("startDelaySeconds", line);
        });

    [Fact]
    public void SliceIndexesAreNamedAsRuns() =>
        Assert.Equal("0-2, 5, 7-8", SlicePlacement.Ranges([8, 0, 1, 2, 5, 7]));
}
