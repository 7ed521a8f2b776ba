using Microsoft.Extensions.Time.Testing;
using StorageBench.Orchestration;
using StorageBench.Orchestration.Hosting;

namespace StorageBench.Tests;

/// <summary>
/// The in-process host replays as Durable Task does: orchestrator code runs again from the start after
/// every completion, past calls are answered from history, and code that would not replay the same way
/// fails the instance instead of quietly doing something else.
/// </summary>
[Trait("Category", "Unit")]
public class ReplayTests
{
    private static InProcessOrchestrationHost Host(Action<InProcessOrchestrationHost>? configure = null)
    {
        var host = new InProcessOrchestrationHost(8, TimeProvider.System)
            .AddActivity<int, int>("Double", (x, _) => Task.FromResult(2 * x))
            .AddActivity<string, string>("Echo", (x, _) => Task.FromResult(x));
        configure?.Invoke(host);
        return host;
    }

    private static async Task<OrchestrationState> RunAsync(InProcessOrchestrationHost host, string orchestrator, object input)
    {
        string id = "t-" + Guid.NewGuid().ToString("N")[..8];
        Assert.True(await host.TryScheduleAsync(orchestrator, id, input, default));
        return await host.WaitForCompletionAsync(id, default).WaitAsync(TimeSpan.FromSeconds(20));
    }

    [Fact]
    public async Task TheOrchestratorRunsAgainFromTheStartAfterEveryCompletionButEachActivityRunsOnce()
    {
        int starts = 0, doubles = 0;
        var host = Host(h => h
            .ReplaceActivity<int, int>("Double", (x, _) => { Interlocked.Increment(ref doubles); return Task.FromResult(2 * x); })
            .AddOrchestrator<int, int>("Chain", async (ctx, x) =>
            {
                starts++;
                int a = await ctx.CallActivityAsync<int>("Double", x);
                int b = await ctx.CallActivityAsync<int>("Double", a);
                return await ctx.CallActivityAsync<int>("Double", b);
            }));

        var state = await RunAsync(host, "Chain", 1);

        Assert.Equal(RuntimeStatus.Completed, state.RuntimeStatus);
        Assert.Equal("8", state.OutputJson);
        Assert.Equal(4, starts);     // the first episode, then one replay per completion
        Assert.Equal(3, doubles);    // replays answer from history; they do not call again
        var history = host.GetHistory(state.InstanceId);
        Assert.Equal(4, history.OfType<OrchestratorStarted>().Count());
        Assert.Equal(3, history.OfType<TaskScheduled>().Count());
        Assert.IsType<ExecutionCompleted>(history[^1]);
    }

    [Fact]
    public async Task TheClockReadsTheTimeRecordedForTheEpisodeNotTheWallClock()
    {
        var seen = new List<DateTime>();
        var host = Host(h => h.AddOrchestrator<int, string>("Clock", async (ctx, _) =>
        {
            var before = ctx.CurrentUtcDateTime;
            seen.Add(before);
            await ctx.CallActivityAsync<int>("Double", 1);
            return $"{before:O} {ctx.CurrentUtcDateTime:O}";
        }));

        var state = await RunAsync(host, "Clock", 0);

        // Both episodes read the same "before": the first episode's recorded time.
        Assert.Equal(2, seen.Count);
        Assert.Equal(seen[0], seen[1]);
        var episodes = host.GetHistory(state.InstanceId).OfType<OrchestratorStarted>().Select(e => e.Timestamp).ToList();
        Assert.Equal($"\"{episodes[0]:O} {episodes[1]:O}\"", state.OutputJson);
    }

    [Fact]
    public async Task OnFakeTimeEachEpisodeReadsTheInstantItStartedAtAndAScheduleBuiltOnItIsExact()
    {
        var time = new FakeTimeProvider(new DateTimeOffset(2026, 11, 25, 2, 0, 0, TimeSpan.Zero));
        var t0 = time.GetUtcNow().UtcDateTime;
        var host = new InProcessOrchestrationHost(8, time)
            // The activity takes 7 s of (fake) time; the episode it completes starts then.
            .AddActivity<int, int>("Slow", (x, _) => { time.Advance(TimeSpan.FromSeconds(7)); return Task.FromResult(x); })
            .AddOrchestrator<int, string>("Schedule", async (ctx, delay) =>
            {
                var startAt = ctx.CurrentUtcDateTime.AddSeconds(delay);   // as a step chooses its synchronized start
                await ctx.CallActivityAsync<int>("Slow", 0);
                return $"{startAt:O} {ctx.CurrentUtcDateTime:O}";
            });

        var state = await RunAsync(host, "Schedule", 4);

        Assert.Equal(RuntimeStatus.Completed, state.RuntimeStatus);
        Assert.Equal($"\"{t0.AddSeconds(4):O} {t0.AddSeconds(7):O}\"", state.OutputJson);
        Assert.Equal([t0, t0.AddSeconds(7)], host.GetHistory(state.InstanceId).OfType<OrchestratorStarted>().Select(e => e.Timestamp));
    }

    [Theory]
    [InlineData("wall clock")]
    [InlineData("new Guid")]
    public async Task AnOrchestratorThatReadsTheWallClockOrANewGuidIsCaughtOnReplay(string source)
    {
        var host = Host(h => h.AddOrchestrator<int, string>("Sloppy", async (ctx, _) =>
        {
            // Not replay-safe: a different input every time the code runs.
            string input = source == "wall clock" ? DateTime.UtcNow.Ticks.ToString() : Guid.NewGuid().ToString();
            string first = await ctx.CallActivityAsync<string>("Echo", input);
            return first + await ctx.CallActivityAsync<string>("Echo", "x");
        }));

        var state = await RunAsync(host, "Sloppy", 0);

        Assert.Equal(RuntimeStatus.Failed, state.RuntimeStatus);
        Assert.StartsWith(nameof(NonDeterministicOrchestrationException), state.FailureMessage);
        Assert.Contains("replay asked for Activity Echo with input", state.FailureMessage);
        Assert.Contains("but history holds Activity Echo with input", state.FailureMessage);
    }

    [Fact]
    public async Task AnOrchestratorThatBranchesOnSomethingElseThanHistoryIsCaught()
    {
        int runs = 0;
        var host = Host(h => h.AddOrchestrator<int, int>("Branchy", async (ctx, _) =>
        {
            // A different activity on replay than the first time.
            int first = await ctx.CallActivityAsync<int>(Interlocked.Increment(ref runs) == 1 ? "Double" : "Echo", 1);
            return first + await ctx.CallActivityAsync<int>("Double", 2);
        }));

        var state = await RunAsync(host, "Branchy", 0);

        Assert.Equal(RuntimeStatus.Failed, state.RuntimeStatus);
        Assert.Contains("replay asked for Activity Echo", state.FailureMessage);
        Assert.Contains("history holds Activity Double", state.FailureMessage);
    }

    [Fact]
    public async Task AnOrchestratorThatAwaitsANonDurableTaskIsCaught()
    {
        var host = Host(h => h.AddOrchestrator<int, int>("Sleepy", async (ctx, x) =>
        {
            await Task.Delay(50);   // a timer Durable Task knows nothing about
            return await ctx.CallActivityAsync<int>("Double", x);
        }));

        var state = await RunAsync(host, "Sleepy", 1);

        Assert.Equal(RuntimeStatus.Failed, state.RuntimeStatus);
        Assert.Contains("awaited something other than an activity or sub-orchestration", state.FailureMessage);
    }

    [Fact]
    public async Task ASubOrchestrationHasItsOwnHistoryAndItsFailureReachesTheParentAsAnActivityFailure()
    {
        var host = Host(h => h
            .AddOrchestrator<int, int>("Child", async (ctx, x) => x < 0
                ? throw new InvalidOperationException("negative")
                : await ctx.CallActivityAsync<int>("Double", x))
            .AddOrchestrator<int, string>("Parent", async (ctx, x) =>
            {
                int ok = await ctx.CallSubOrchestratorAsync<int>("Child", ctx.InstanceId + "-a", x);
                try
                {
                    await ctx.CallSubOrchestratorAsync<int>("Child", ctx.InstanceId + "-b", -1);
                    return "no failure?";
                }
                catch (ActivityFailedException ex)
                {
                    return $"{ok} / {ex.Message}";
                }
            }));

        var state = await RunAsync(host, "Parent", 21);

        Assert.Equal(RuntimeStatus.Completed, state.RuntimeStatus);
        Assert.Contains("42 / sub-orchestration Child failed", state.OutputJson);
        Assert.Contains("negative", state.OutputJson);
        // The parent's history holds the sub-orchestrations, never the child's activity.
        var parent = host.GetHistory(state.InstanceId);
        Assert.Equal(2, parent.OfType<SubOrchestrationCreated>().Count());
        Assert.Empty(parent.OfType<TaskScheduled>());
        Assert.Single(host.GetHistory(state.InstanceId + "-a").OfType<TaskScheduled>());
    }

    [Fact]
    public async Task AnActivityThatRunsTwiceDeliversOneResultAndThePayloadBudgetIsEnforced()
    {
        int executions = 0;
        var payloads = new List<PayloadRecord>();
        var host = Host(h =>
        {
            h.ExecutionsOf = name => name == "Count" ? 2 : 1;
            h.PayloadObserver = p => { lock (payloads) { payloads.Add(p); } };
            h.AddActivity<int, int>("Count", (_, _) => Task.FromResult(Interlocked.Increment(ref executions)))
             .AddActivity<int, string>("Huge", (n, _) => Task.FromResult(new string('x', n)))
             .AddOrchestrator<int, string>("Budget", async (ctx, n) =>
             {
                 int seen = await ctx.CallActivityAsync<int>("Count", 0);
                 try
                 {
                     await ctx.CallActivityAsync<string>("Huge", n);
                     return $"{seen}: no failure?";
                 }
                 catch (ActivityFailedException ex)
                 {
                     return $"{seen}: {ex.ErrorType}: {ex.ErrorMessage}";
                 }
             });
        });

        var state = await RunAsync(host, "Budget", PayloadBudget.MaxBytes + 1);

        Assert.Equal(2, executions);             // at least once: here, twice
        Assert.StartsWith("\"2: ", state.OutputJson);   // the orchestrator got exactly one result, the last one
        Assert.Contains(typeof(PayloadBudgetExceededException).FullName!, state.OutputJson);
        Assert.Contains("activity output of Huge is 32,771 bytes, over the 32,768-byte payload budget", state.OutputJson);
        Assert.Contains(payloads, p => p is { Kind: "activity output", Name: "Huge", Bytes: 32_771 });
    }

    [Fact]
    public async Task TerminatingAnInstanceEndsItAndItsSubOrchestrations()
    {
        var gate = new TaskCompletionSource();
        var waiting = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var host = Host(h => h
            .AddActivity<int, int>("Wait", async (_, ct) => { waiting.TrySetResult(); await gate.Task.WaitAsync(ct); return 0; })
            .AddOrchestrator<int, int>("Inner", (ctx, _) => ctx.CallActivityAsync<int>("Wait", 0))
            .AddOrchestrator<int, int>("Outer", (ctx, _) => ctx.CallSubOrchestratorAsync<int>("Inner", ctx.InstanceId + "-in", 0)));
        Assert.True(await host.TryScheduleAsync("Outer", "outer", 0, default));
        // The inner instance's activity has started: the signal, not a poll of its status.
        await waiting.Task.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(RuntimeStatus.Running, (await host.GetStateAsync("outer-in", default))?.RuntimeStatus);

        await host.TerminateAsync("outer", "enough", default);

        Assert.Equal(RuntimeStatus.Terminated, (await host.WaitForCompletionAsync("outer", default).WaitAsync(TimeSpan.FromSeconds(10))).RuntimeStatus);
        Assert.Equal(RuntimeStatus.Terminated, (await host.WaitForCompletionAsync("outer-in", default).WaitAsync(TimeSpan.FromSeconds(10))).RuntimeStatus);
    }
}
