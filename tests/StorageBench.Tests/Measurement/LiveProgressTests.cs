using StorageBench.Engine.Measurement;

namespace StorageBench.Tests;

/// <summary>
/// The elapsed seconds the runs API and the dashboard show for a workload: time of its sending, which stops when it
/// ends — a canceled or finished run that goes on verifying never reads "17 of 12 s".
/// </summary>
[Trait("Category", "Unit")]
public class LiveProgressTests
{
    private static readonly DateTime Start = new(2026, 11, 23, 18, 0, 0, DateTimeKind.Utc);

    private static SliceProgress Slice(int index, double updatedAfter, bool done, double duration = 12) =>
        new("step", "tableInsert", index, new LiveCounts(10, 500, 0, 0), done ? 0 : 100, 0, duration, Start, Start.AddSeconds(updatedAfter), done);

    [Fact]
    public void ElapsedStopsWhenEverySliceIsDoneNotWhenTheRunEnds()
    {
        // Canceled 5 s in; the run then verified and stored its result, and is read 17 s after the start.
        var live = WorkloadProgress.Of([Slice(0, 5.0, done: true), Slice(1, 4.5, done: true)], "tableInsert", Start.AddSeconds(17))!;

        Assert.Equal(5.0, live.ElapsedSeconds, 3);
        Assert.Equal(12, live.DurationSeconds);
    }

    [Fact]
    public void OnceEverySliceIsDoneTheRateIsTheWorkloadsOwnNotZero()
    {
        // Two slices of 500 entities, done 5 s after the start: no slice sends any more, and each last reported 0/s.
        var live = WorkloadProgress.Of([Slice(0, 5.0, done: true), Slice(1, 4.5, done: true)], "tableInsert", Start.AddSeconds(17))!;

        Assert.Equal(200, live.UnitsPerSecond, 3);
        Assert.Equal("5/12 s, 1,000 entities, 200 entities/s, throttled 0, failed 0", StorageBench.Cli.ProgressDisplay.Figures(live));
    }

    [Fact]
    public void WhileASliceRunsTheRateIsWhatTheRunningSlicesLastReported()
    {
        var live = WorkloadProgress.Of([Slice(0, 6.8, done: false), Slice(1, 5.0, done: true)], "tableInsert", Start.AddSeconds(7))!;

        Assert.Equal(100, live.UnitsPerSecond, 3);
    }

    [Fact]
    public void WhileTheSlicesRunButNoneReportedLatelyTheRateIsTheWorkloadsOwnNotZero()
    {
        // A loaded machine: both slices still run, but their last progress rows are 8 s old (writes late or skipped).
        var live = WorkloadProgress.Of([Slice(0, 2.0, done: false), Slice(1, 2.0, done: false)], "tableInsert", Start.AddSeconds(10))!;

        Assert.Equal(100, live.UnitsPerSecond, 3);   // 1,000 entities over 10 s
    }

    [Fact]
    public void ElapsedNeverPassesThePlannedDurationWhileASliceFinishesItsLastRequests()
    {
        var live = WorkloadProgress.Of([Slice(0, 12.0, done: true), Slice(1, 11.9, done: false)], "tableInsert", Start.AddSeconds(17))!;

        Assert.Equal(12.0, live.ElapsedSeconds, 3);
    }

    [Fact]
    public void WhileTheSlicesRunElapsedIsTheTimeSinceTheStartInstant()
    {
        var live = WorkloadProgress.Of([Slice(0, 6.8, done: false), Slice(1, 6.9, done: false)], "tableInsert", Start.AddSeconds(7))!;

        Assert.Equal(7.0, live.ElapsedSeconds, 3);
    }
}
