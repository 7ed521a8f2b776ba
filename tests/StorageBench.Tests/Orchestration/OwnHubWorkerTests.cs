using StorageBench.Orchestration;
using StorageBench.TaskHub;

namespace StorageBench.Tests;

/// <summary>
/// What a run's own hub does so a short run is short (BENCHMARKS.md section 10): its worker keeps an orchestration in memory
/// between steps rather than reading its history back and replaying it, and tells a watcher in its process the moment an
/// instance has run its last step.
/// </summary>
[Collection(AzuriteCollection.Name)]
[Trait("Category", "Azurite")]
public class OwnHubWorkerTests(AzuriteFixture azurite)
{
    private const string Orchestrator = "ThreeSteps";

    /// <summary>An orchestrator of three activity calls that counts how often its code starts from the top (each replay does).</summary>
    private static TaskRegistry Registry(Counter starts) => new TaskRegistry()
        .AddOrchestrator<int, int>(Orchestrator, async (context, input) =>
        {
            if (!context.IsReplaying)
            {
                Interlocked.Increment(ref starts.Value);
            }
            else
            {
                Interlocked.Increment(ref starts.Replays);
            }
            int sum = input;
            for (int i = 0; i < 3; i++)
            {
                sum += await context.CallActivityAsync<int>("AddOne", sum);
            }
            return sum;
        })
        .AddActivity<int, int>("AddOne", (n, _) => Task.FromResult(1));

    private sealed class Counter
    {
        public int Value;
        public int Replays;
    }

    [Theory]
    [InlineData(true, 0)]
    [InlineData(false, 3)]
    public async Task ARunsOwnHubRunsEachStepWithoutReplayingTheOnesBefore(bool ownHub, int replays)
    {
        var counter = new Counter();
        var settings = ownHub ? AzuriteFixture.NewHubSettings().ForOneRun() : AzuriteFixture.NewHubSettings();
        await using var hub = await LocalTaskHub.StartAsync(azurite.Target, settings, Registry(counter));
        await hub.TryScheduleAsync(Orchestrator, "three", 10, default);

        var state = await hub.WaitForCompletionAsync("three", default).WaitAsync(TimeSpan.FromMinutes(1));
        Assert.Equal(RuntimeStatus.Completed, state.RuntimeStatus);
        Assert.Equal("13", state.OutputJson);
        Assert.Equal(1, counter.Value);
        Assert.Equal(replays, counter.Replays);
        hub.DeleteWhenDisposed();
    }

    /// <summary>The nightly timer's double fire, or a second POST with the same id: an id that exists is not started again, pending or ended.</summary>
    [Fact]
    public async Task AnIdThatExistsIsNotScheduledAgainWhetherItIsPendingOrEnded()
    {
        var counter = new Counter();
        var settings = AzuriteFixture.NewHubSettings().ForOneRun();
        await using (var client = await LocalTaskHub.StartAsync(azurite.Target, settings, registry: null))
        {
            Assert.True(await client.TryScheduleAsync(Orchestrator, "once", 10, default));
            Assert.False(await client.TryScheduleAsync(Orchestrator, "once", 20, default));
        }
        await using var hub = await LocalTaskHub.StartAsync(azurite.Target, settings, Registry(counter));
        var state = await hub.WaitForCompletionAsync("once", default).WaitAsync(TimeSpan.FromMinutes(1));
        Assert.False(await hub.TryScheduleAsync(Orchestrator, "once", 30, default));

        Assert.Equal("13", state.OutputJson);
        Assert.Equal(1, counter.Value);
        Assert.Equal("13", (await hub.GetStateAsync("once", default))!.OutputJson);
        hub.DeleteWhenDisposed();
    }

    [Fact]
    public async Task AWatcherInTheWorkersProcessIsWokenWhenTheInstanceEndsAndOneElsewhereIsNot()
    {
        await using var worker = await LocalTaskHub.StartAsync(azurite.Target, AzuriteFixture.NewHubSettings().ForOneRun() with { HubName = "wake" + Guid.NewGuid().ToString("N")[..12] }, Registry(new Counter()));
        await using var elsewhere = await LocalTaskHub.StartAsync(azurite.Target, worker.Settings, registry: null);
        Task ending = worker.EndingAsync("woken");
        Task endingElsewhere = elsewhere.EndingAsync("woken");
        Task otherInstance = worker.EndingAsync("never-started");

        await elsewhere.TryScheduleAsync(Orchestrator, "woken", 1, default);
        await ending.WaitAsync(TimeSpan.FromMinutes(1));
        var state = await worker.WaitForCompletionAsync("woken", default).WaitAsync(TimeSpan.FromMinutes(1));

        Assert.Equal(RuntimeStatus.Completed, state.RuntimeStatus);
        Assert.False(endingElsewhere.IsCompleted);
        Assert.False(otherInstance.IsCompleted);
        worker.DeleteWhenDisposed();
    }
}
