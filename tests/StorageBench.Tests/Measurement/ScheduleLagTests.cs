using StorageBench.Engine.Workloads.TableInsert;
using System.Diagnostics;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Reports;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>
/// An open loop times each request from its slot (or its send, when the timer woke early), records the service time from the
/// send and the lag beside it, counts the late requests and the slots a duration ended before sending, and warns when it fell behind.
/// </summary>
[Trait("Category", "Unit")]
public class ScheduleLagTests
{
    private static readonly long Second = Stopwatch.Frequency;

    [Fact]
    public void ALateRequestIsTimedFromItsSlotAndItsServiceTimeFromItsSend()
    {
        var open = new WorkerRecorder(0, 0, openLoop: true);
        long now = Stopwatch.GetTimestamp();
        // Sent 10 ms ago, due 60 s ago: it waited a minute for its loop.
        open.Record(Outcome.Succeeded, now - Second / 100, 1, dueTimestamp: now - 60 * Second);
        var latency = SummaryCalculator.Latency(open.Latency);
        var service = SummaryCalculator.Latency(open.ServiceTime);
        var lag = SummaryCalculator.Lag(open.Lag!, dropped: 0);
        Assert.True(latency.Min >= 60_000, $"latency {latency.Min} ms left out the wait");
        Assert.True(service.Min >= 10 && service.Max < 60_000, $"service time {service.Min} ms");
        Assert.True(lag.MaxMs >= 59_990 && lag.LateRequests == 1, $"lag {lag}");

        // The same request sent on time, in a closed loop: its slot means nothing there, latency is its service time.
        var closed = new WorkerRecorder(0, 0);
        closed.Record(Outcome.Succeeded, now - Second / 100, 1, dueTimestamp: now - 60 * Second);
        Assert.Null(closed.Lag);
        Assert.Same(closed.Latency, closed.ServiceTime);
        Assert.True(SummaryCalculator.Latency(closed.Latency).Max < 60_000);
    }

    [Fact]
    public void ARequestSentBeforeItsSlotIsTimedFromItsSendNeverShorterThanItTook()
    {
        var open = new WorkerRecorder(0, 0, openLoop: true);
        long now = Stopwatch.GetTimestamp();
        // The timer woke 5 ms before the slot: from the slot the sample would be 5 ms shorter than the request took.
        long sent = now - Second / 100;
        open.Record(Outcome.Succeeded, sent, 1, dueTimestamp: sent + Second / 200);
        Assert.True(SummaryCalculator.Latency(open.Latency).Min >= 10);
        var lag = SummaryCalculator.Lag(open.Lag!, dropped: 0);
        Assert.Equal((0.0, 0L), (lag.MaxMs!.Value, lag.LateRequests));
    }

    [Fact]
    public void RequestsMoreThanOneMillisecondLateAreCountedAndWarnedAbout()
    {
        var h = LatencyHistograms.Create();
        foreach (long micros in new long[] { 0, 400, 1000 })
        {
            h.RecordValue(micros);
        }
        var onTime = SummaryCalculator.Lag(h, dropped: 0);
        Assert.Equal((3L, 0L, false), (onTime.Requests, onTime.LateRequests, onTime.FellBehind));
        Assert.DoesNotContain("WARNING", ReportWriter.Schedule(onTime));

        h.RecordValue(1001);
        h.RecordValue(250_000);
        var behind = SummaryCalculator.Lag(h, dropped: 0);
        Assert.Equal((5L, 2L, true), (behind.Requests, behind.LateRequests, behind.FellBehind));
        Assert.InRange(behind.MaxMs!.Value, 250, 250.3);
        Assert.Contains("2 of 5 requests went out more than 1 ms late. WARNING: the open loop could not keep its rate; raise concurrency or slices, " +
            "or lower targetOperationsPerSecond.", ReportWriter.Schedule(behind));

        var dropped = SummaryCalculator.Lag(LatencyHistograms.Create(), dropped: 7);
        Assert.Null(dropped.P99Ms);
        Assert.Contains("7 slots not sent by the end of the duration (dropped)", ReportWriter.Schedule(dropped));
        Assert.Contains("WARNING", ReportWriter.Schedule(dropped));
    }

    [Fact]
    public void ATimedOpenLoopSendsNothingAfterItsDurationAndCountsTheSlotsItDropped()
    {
        var spec = new TableInsertSpec { DurationSeconds = 1 };
        // Started 2 s ago at 100/s: its 100 slots were all due before its end, and the loop never got to them.
        var late = new OperationSchedule(spec, long.MaxValue, 100, Stopwatch.GetTimestamp() - 2 * Second);
        Assert.False(late.TryNext(out _, out _));
        Assert.Equal(100, late.Dropped());

        // On time: the slots it hands out are not dropped.
        var onTime = new OperationSchedule(spec, long.MaxValue, 100, Stopwatch.GetTimestamp());
        Assert.True(onTime.TryNext(out long index, out _) && index == 0);
        Assert.Equal(0, onTime.Dropped());

        // A fixed count sends every request, however late; a closed loop has no slots to drop.
        var counted = new OperationSchedule(new TableInsertSpec(), 5, 100, Stopwatch.GetTimestamp() - 60 * Second);
        Assert.Equal(5, Enumerable.Range(0, 6).Count(n => counted.TryNext(out _, out _)));
        Assert.Equal(0, counted.Dropped());
        var closed = new OperationSchedule(spec, long.MaxValue, 0, Stopwatch.GetTimestamp() - 2 * Second);
        Assert.False(closed.TryNext(out _, out _));
        Assert.Equal(0, closed.Dropped());
    }
}
