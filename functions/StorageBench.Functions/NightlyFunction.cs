using Microsoft.Azure.Functions.Worker;
using Microsoft.DurableTask.Client;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Logging;
using StorageBench.Orchestration;

namespace StorageBench.Functions;

/// <summary>The scheduled run: one instance per UTC date (nightly-yyyyMMdd), checked against the scenario's baseline.</summary>
public sealed class NightlyFunction(IConfiguration configuration, TimeProvider time, ILogger<NightlyFunction> log)
{
    [Function("NightlyRun")]
    public async Task NightlyRun(
        [TimerTrigger("%STORAGEBENCH_NIGHTLY_SCHEDULE%")] TimerInfo timer,
        [DurableClient] DurableTaskClient client, FunctionContext context)
    {
        string spec = configuration[Wiring.NightlySpec] is { Length: > 0 } s ? s : throw new InvalidOperationException($"{Wiring.NightlySpec} is not set");
        var started = await new RunStarter(new DurableRunClient(client), time) { Memory = RunsFunctions.InstanceMemory }.StartNightlyAsync(spec, context.CancellationToken).ConfigureAwait(false);
        if (started.Started)
        {
            log.NightlyRunStarted(started.RunId, timer.IsPastDue);
        }
        else if (started.AlreadyExisted)
        {
            log.NightlyRunExists(started.RunId);
        }
        else
        {
            log.NightlySpecRejected(string.Join("; ", started.Errors));
            throw new InvalidOperationException($"{Wiring.NightlySpec} was rejected: {string.Join("; ", started.Errors)}");
        }
    }
}
