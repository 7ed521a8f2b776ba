using StorageBench.Engine.Reports;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Workloads.TableInsert;

namespace StorageBench.Tests;

/// <summary>
/// An open loop's latency includes the time a request waited for its slot (coordinated omission). Behind a proxy that
/// holds every table request H ms, one request in flight manages about 1000 / H a second. Asked twice that, each request
/// goes out later than its slot by half a hold more than the one before: its callers would have waited that long, so p90
/// is many holds. Asked a quarter of that, no request waits: p90 is what the service took, however slow a busy machine
/// made it (only an answer slower than four holds could make the next request late). No sample is shorter than the hold.
/// </summary>
[Trait("Category", "Azurite")]
[Collection(AzuriteCollection.Name)]
public class CoordinatedOmissionTests(AzuriteFixture azurite)
{
    // Long beside what Azurite and a busy machine add to a request, so at half capacity a slow answer rarely makes the next one late.
    private const double HoldMs = 80;

    public static TheoryData<int, double, int> Cases() => new()
    {
        // batch size, rate as a multiple of what one request in flight can do, requests
        { 10, 2, 30 },
        { 1, 2, 30 },
        { 10, 0.25, 20 },
    };

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task AnOpenLoopTimesEachRequestFromItsSlot(int batchSize, double ofCapacity, int requests)
    {
        var summary = await RunAsync(new TableInsertSpec
        {
            EntityCount = requests * batchSize, BatchSize = batchSize, EntitySizeBytes = 64, Concurrency = 1,
            TargetOperationsPerSecond = ofCapacity * 1000 / HoldMs,
        });

        var l = summary.LatencyMs;
        var service = summary.ServiceTimeMs!;
        var lag = summary.ScheduleLag!;
        Assert.True(summary.Failed == 0 && l.Samples == requests, $"{summary.Failed} failed, {l.Samples} samples");
        Assert.True(l.Min >= HoldMs && service.Min >= HoldMs, $"min {l.Min} ms, service time min {service.Min} ms under the proxy's {HoldMs} ms hold");
        Assert.Equal(requests, lag.Requests);
        if (ofCapacity > 1)
        {
            // The 27th of 30 requests went out at least 27 half holds after its slot.
            Assert.True(l.P90 >= 10 * HoldMs, $"at {ofCapacity}× capacity p90 {l.P90} ms hides the wait: under 10 × {HoldMs} ms");
            // What the service took is apart from the wait, and the wait is reported as the schedule's lag.
            Assert.True(service.P90 < l.P90 - 5 * HoldMs, $"service time p90 {service.P90} ms against latency p90 {l.P90} ms");
            Assert.True(lag.FellBehind && lag.LateRequests >= requests / 2 && lag.MaxMs >= 10 * HoldMs, $"{lag}");
            Assert.Contains("WARNING: the open loop could not keep its rate", ReportWriter.Schedule(lag));
        }
        else
        {
            // A slot every four holds: the loop adds no wait of its own, so the latency is the service time (beside two CPU hogs an
            // 80-ms hold took up to 340 ms: at a slot every two holds those answers made the next requests late, as they should).
            Assert.True(l.P90 < service.P90 + HoldMs, $"at {ofCapacity}× capacity p90 {l.P90} ms is more than the service time's p90 {service.P90} ms and a hold ({service}, {lag})");
            Assert.Equal(0, lag.DroppedOperations);
        }
    }

    [Fact]
    public async Task ATimedOpenLoopThatFallsBehindDropsWhatItCouldNotSendInItsDuration()
    {
        // 1 s at twice what one request in flight can do: about half its slots are sent, the rest dropped, not sent late.
        var spec = new TableInsertSpec
        {
            DurationSeconds = 1, BatchSize = 10, EntitySizeBytes = 64, Concurrency = 1, TargetOperationsPerSecond = 2 * 1000 / HoldMs,
        };
        var summary = await RunAsync(spec);
        var lag = summary.ScheduleLag!;
        Assert.True(lag.DroppedOperations > 0, $"{lag}");
        // Every slot of the duration was either sent or dropped.
        Assert.Equal((long)(spec.DurationSeconds * spec.TargetOperationsPerSecond), summary.Operations + lag.DroppedOperations);
        Assert.Contains("slots not sent by the end of the duration (dropped)", ReportWriter.Schedule(lag));
    }

    private async Task<WorkloadSummary> RunAsync(TableInsertSpec spec)
    {
        var (proxy, target) = await FaultProxy.DelayingInFrontOfAsync(azurite.ConnectionString, "TableEndpoint", _ => true, TimeSpan.FromMilliseconds(HoldMs));
        await using var _ = proxy;
        var step = TestStep.New();
        await azurite.Tables.CreateTableAsync(step.TableName);
        // Primed before a start 1 s ahead, as a run is: a cold first request (connection, JIT) would hold up the slots after it.
        var plans = TableInsertRoom.PlanSlices(step.RunId, step.StepId, step.TableName, spec, new ClientSettings { PrimeRounds = 2 }, DateTime.UtcNow.AddSeconds(1));
        var results = await Task.WhenAll(plans.Select(p => TableInsertSlice.RunAsync(p, target, TimeProvider.System, default)));
        return TableInsertRoom.SummarizeSlices(spec, results, new VerificationResult(true, 0, 0, "entities", "not checked here"));
    }
}
