using Microsoft.Extensions.Logging;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;

namespace StorageBench.TaskHub;

/// <summary>
/// How a local worker runs the task hub. The defaults are chosen for one machine: every slice of the largest step can
/// run at once (the synchronized start), and a killed process's work comes back to another within about 30 s.
/// </summary>
public sealed record TaskHubSettings
{
    /// <summary>The Function App's task hub (host.json's hubName); a local shared hub is this name and its accounts' (<see cref="SharedHubFor"/>).</summary>
    public const string DefaultHubName = "StorageBench";

    /// <summary>
    /// The shared hub of the accounts under test, where `serve`, `worker` and `run --external-workers` meet unless --task-hub
    /// names one: named from the accounts (never their keys). A worker writes to the accounts it was given, so on a hub
    /// two targets shared, a slice of a run against one was taken by the other's worker and written into its account.
    /// </summary>
    public static string SharedHubFor(IEnumerable<StorageTarget> targets)
    {
        byte[] hash = System.Security.Cryptography.SHA256.HashData(System.Text.Encoding.UTF8.GetBytes(string.Join('\n', targets.Select(t => t.Identity))));
        return DefaultHubName + Convert.ToHexStringLower(hash.AsSpan(0, 5));
    }

    /// <summary>Durable's rule for hub names: 3 to 45 letters and digits, starting with a letter.</summary>
    public const string HubNameRule = "must be 3 to 45 letters and digits, starting with a letter";

    public string HubName { get; init; } = DefaultHubName;

    /// <summary>The largest fan-out: all 256 slices of a step, plus the control activities.</summary>
    public const int LargestFanOut = ServiceLimits.MaxSlices + 8;

    /// <summary>Like Durable Functions' maxConcurrentActivityFunctions: <see cref="LargestFanOut"/>.</summary>
    public int MaxConcurrentActivities { get; init; } = LargestFanOut;

    public int MaxConcurrentOrchestrations { get; init; } = 16;

    /// <summary>
    /// How many control-queue messages the worker holds before it stops dequeuing: every result of the largest fan-in (all
    /// activities that may run at once). At the provider's default, 64, a 256-slice step's results filled it, and each time
    /// its dequeue loop slept a whole second (nothing wakes it when the buffer drains): about 1 s per 64 results after the
    /// last slice, 2.5–7 s before the run's row was stored.
    /// </summary>
    public int ControlQueueBufferThreshold { get; init; } = LargestFanOut;

    /// <summary>
    /// How long a dequeued message stays invisible. A running activity renews it about every 5 s (DurableTask.Core renews
    /// 30 s before it lapses); a killed process's messages reappear to another worker after at most this.
    /// </summary>
    public TimeSpan VisibilityTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Control queues (and partition leases) of the hub: <see cref="SharedHubPartitions"/> where several workers share it; 1 on
    /// a run's own hub (<see cref="ForOneRun"/>), which one process works: each queue more is one more create, delete and poll
    /// in the hub store on every short run, and spreads nothing.
    /// </summary>
    public int PartitionCount { get; init; } = SharedHubPartitions;

    /// <summary>
    /// The partitions of a hub several workers share: the Azure Storage provider's most. A handed-back slice reaches a worker
    /// through a partition that worker owns (docs/architecture.md, "Placement"), so a worker beyond the hub's partition count
    /// owns none and is never offered one: on the provider's default of 4, 8 workers could not take 8 slices one each.
    /// </summary>
    public const int SharedHubPartitions = HubPartitions.Most;

    /// <summary>These settings for a run's own hub (<see cref="ForRun"/>): one partition, its lease a blob.</summary>
    public TaskHubSettings ForOneRun() => this with { PartitionCount = 1, TablePartitionLeases = false, ExtendedSessions = true };

    /// <summary>
    /// The worker keeps an orchestration it is running in memory between its steps (the provider's extended sessions), so a
    /// step neither reads the history back nor replays it. On a run's own hub, which one process works: each of a short run's
    /// dozen orchestrator steps cost 20–40 ms of reading and replay. Where workers share a hub an instance's next message may
    /// reach another worker, which then replays anyway. DurableTask.Core lets at most half of <see cref="MaxConcurrentOrchestrations"/>
    /// hold a session while it waits, so a step's slice orchestrations still run in the other half.
    /// </summary>
    public bool ExtendedSessions { get; init; }

    /// <summary>
    /// Partition leases as rows of the hub's partitions table, the provider's default, which hands partitions between workers
    /// safely; false: as blobs (the provider's legacy manager). A run's own hub has one worker, and there the table manager
    /// only cost time: it sleeps a fixed second at every stop while it drains, a second of every short run's 2–4 s. The blob
    /// manager releases its lease at once.
    /// </summary>
    public bool TablePartitionLeases { get; init; } = true;

    /// <summary>The longest an idle worker waits between queue polls: how long a new run may wait to be picked up.</summary>
    public TimeSpan MaxPollingInterval { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>
    /// How often a worker looks at the hub's partition table to share the control-queue partitions with the other workers
    /// (the provider's default is 10 s). A handed-back slice reaches another worker through a partition that worker owns
    /// (docs/architecture.md, "Placement"), so a worker that just joined should own its share within a few seconds.
    /// </summary>
    public TimeSpan PartitionBalanceInterval { get; init; } = TimeSpan.FromSeconds(2);

    /// <summary>The worker's name in the hub's leases and in each slice's row (default: machine and process id).</summary>
    public string WorkerId { get; init; } = $"{Environment.MachineName}-{Environment.ProcessId}";

    /// <summary>The worker's name in slice results and on the hub's roster: machine and process id, as a Function App instance's is (tests give each in-process worker its own).</summary>
    public string WorkerName { get; init; } = Orchestration.Activities.WorkerSeats.ProcessWorker;

    /// <summary>The engine's own logs (DurableTask.Core, DurableTask.AzureStorage): warnings and above are worth reading.</summary>
    public ILoggerFactory? Loggers { get; init; }

    /// <summary>Called with every payload serialized (tests measure the largest).</summary>
    public Action<PayloadRecord>? PayloadObserver { get; init; }

    /// <summary>
    /// A run's own hub, named from its id (letters and digits of "SB" + the id, at most 45): a run alone on its hub shares no
    /// partition lease with another run, nor with a process that was killed holding one, so it never waits for either.
    /// </summary>
    public static string ForRun(string runId)
    {
        string name = "SB" + new string([.. runId.Where(char.IsAsciiLetterOrDigit)]);
        return name.Length <= 45 ? name : name[..36] + "x" + ((uint)StableHash(runId)).ToString("x8", System.Globalization.CultureInfo.InvariantCulture);
    }

    private static int StableHash(string text) => text.Aggregate(17, (h, c) => unchecked((h * 31) + c));

    public static bool IsValidHubName(string name) =>
        name.Length is >= 3 and <= 45 && char.IsAsciiLetter(name[0]) && name.All(char.IsAsciiLetterOrDigit);
}
