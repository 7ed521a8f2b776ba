using Microsoft.Extensions.Time.Testing;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>
/// The synchronized-start barrier's logic on time the test moves (FakeTimeProvider): a slice waits exactly until
/// the chosen instant, a late one starts at once and says how late, a stopped one does not wait. How punctual the
/// real scheduler is at the instant is measured by scripts/benchmark.sh, not asserted here.
/// </summary>
[Trait("Category", "Unit")]
public class SliceClockTests
{
    private static readonly DateTimeOffset T0 = new(2026, 11, 25, 2, 0, 0, TimeSpan.Zero);
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(30);   // a wait that never ends fails the test instead of hanging it

    [Fact]
    public async Task ASliceWaitsUntilTheInstantAndPassesItWithNoLag()
    {
        var time = new FakeTimeProvider(T0);
        var startAt = T0.UtcDateTime.AddSeconds(4);

        var waiting = SliceClock.StartAtAsync(startAt, time, default);
        time.Advance(TimeSpan.FromSeconds(4) - TimeSpan.FromTicks(1));
        Assert.False(waiting.IsCompleted, "the slice passed the barrier before the instant");
        time.Advance(TimeSpan.FromTicks(1));
        var clock = await waiting.WaitAsync(Bound);

        Assert.Equal(startAt, clock.StartedUtc);
        Assert.Equal(0, clock.LagSeconds(startAt));
    }

    [Fact]
    public async Task ATimerThatFiresBeforeTheWallClockReachesTheInstantDoesNotLetTheSliceStartEarly()
    {
        // Seen in CI: a slice's first request stamped 3 ms before its start instant, its timer having fired early.
        var fake = new FakeTimeProvider(T0);
        var time = new EarlyTimers(fake, TimeSpan.FromMilliseconds(3));
        var startAt = T0.UtcDateTime.AddSeconds(4);

        var waiting = SliceClock.StartAtAsync(startAt, time, default);
        fake.Advance(TimeSpan.FromSeconds(4) - TimeSpan.FromMilliseconds(3));   // the timer fires here, 3 ms early
        // Either the slice passes the barrier now (wrong) or it sets a timer for the rest: wait for whichever comes first.
        await Task.WhenAny(waiting, time.SecondTimer.Task).WaitAsync(Bound);
        if (waiting.IsCompleted)
        {
            var early = await waiting;
            Assert.Fail($"the slice passed the barrier when its timer fired, at {early.StartedUtc:HH:mm:ss.fff}, before {startAt:HH:mm:ss.fff}");
        }
        fake.Advance(TimeSpan.FromMilliseconds(3));
        var clock = await waiting.WaitAsync(Bound);

        Assert.True(clock.StartedUtc >= startAt, $"started {clock.StartedUtc:HH:mm:ss.fff}, before {startAt:HH:mm:ss.fff}");
    }

    /// <summary>The wall clock of <paramref name="inner"/>, with every timer firing <paramref name="early"/> before it is due.</summary>
    private sealed class EarlyTimers(FakeTimeProvider inner, TimeSpan early) : TimeProvider
    {
        private int _timers;

        /// <summary>Set when a second timer is created: the waiter saw the instant had not come and waits on.</summary>
        public TaskCompletionSource SecondTimer { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public override DateTimeOffset GetUtcNow() => inner.GetUtcNow();

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
        {
            var timer = inner.CreateTimer(callback, state, dueTime > early ? dueTime - early : dueTime, period);
            if (Interlocked.Increment(ref _timers) == 2)
            {
                SecondTimer.TrySetResult();
            }
            return timer;
        }
    }

    [Fact]
    public async Task ASliceThatArrivesAfterTheInstantStartsAtOnceAndSaysHowLate()
    {
        var time = new FakeTimeProvider(T0);
        var startAt = T0.UtcDateTime.AddSeconds(-1.5);

        var clock = await SliceClock.StartAtAsync(startAt, time, default).WaitAsync(Bound);

        Assert.Equal(T0.UtcDateTime, clock.StartedUtc);
        Assert.Equal(1.5, clock.LagSeconds(startAt), 9);
    }

    [Fact]
    public async Task ASliceStoppedWhileItWaitsStartsAtOnceWithoutTimeMoving()
    {
        var time = new FakeTimeProvider(T0);
        using var stop = new CancellationTokenSource();

        var waiting = SliceClock.StartAtAsync(T0.UtcDateTime.AddMinutes(5), time, stop.Token);
        Assert.False(waiting.IsCompleted);
        stop.Cancel();
        var clock = await waiting.WaitAsync(Bound);

        Assert.Equal(T0.UtcDateTime, clock.StartedUtc);
    }

    [Fact]
    public void PrimingStopsAMarginBeforeTheInstantAndSoonerWhenItsLastRoundWasLong()
    {
        var time = new FakeTimeProvider(T0);
        var startAt = T0.UtcDateTime.AddSeconds(2);

        time.Advance(TimeSpan.FromSeconds(2) - Priming.Margin - TimeSpan.FromTicks(1));
        Assert.True(Priming.HasTime(startAt, time));
        time.Advance(TimeSpan.FromTicks(1));
        Assert.False(Priming.HasTime(startAt, time));   // within the margin: no new round

        // A round of 1 s must end before the margin too: it may not begin within 1.25 s of the instant.
        var round = TimeSpan.FromSeconds(1);
        var later = new FakeTimeProvider(T0.AddSeconds(2) - Priming.Margin - round - TimeSpan.FromTicks(1));
        Assert.True(Priming.HasTime(startAt, later, round));
        later.Advance(TimeSpan.FromTicks(1));
        Assert.False(Priming.HasTime(startAt, later, round));
    }
}
