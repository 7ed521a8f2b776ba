using Azure.Identity;
using DurableTask.AzureStorage;
using DurableTask.Core;
using DurableTask.Core.Exceptions;
using Microsoft.DurableTask.Worker;
using Microsoft.DurableTask.Worker.Shims;
using Microsoft.Extensions.Logging.Abstractions;
using StorageBench.Engine.Targets;
using StorageBench.Orchestration;
using CoreState = DurableTask.Core.OrchestrationState;
using OrchestrationState = StorageBench.Orchestration.OrchestrationState;

namespace StorageBench.TaskHub;

/// <summary>
/// A Durable Task hub in an Azure Storage account (Azurite or real: control and work-item queues, History and Instances
/// tables, lease blobs), as Durable Functions keeps it, with this process as one of its workers and as a client.
/// DurableTask.Core's TaskHubWorker runs the registered orchestrators and activities on
/// AzureStorageOrchestrationService; TaskHubClient starts, reads and terminates instances. Several processes on one
/// hub share its work as Function App instances do, and a killed process's work is taken up by another.
/// </summary>
public sealed class LocalTaskHub : IRunOrchestrationClient, IAsyncDisposable
{
    /// <summary>How often a wait reads an instance's state: the client's own completion wait polls slowly.</summary>
    private static readonly TimeSpan StatePoll = TimeSpan.FromMilliseconds(250);

    /// <summary>How long stopping the worker may take before the process goes on without it.</summary>
    private static readonly TimeSpan StopWait = TimeSpan.FromSeconds(15);

    private readonly AzureStorageOrchestrationService _service;
    private readonly TaskHubWorker? _worker;
    private readonly TaskHubClient _client;
    private readonly CancellationTokenSource _stopping;
    private readonly TaskRegistry? _registry;
    private readonly Endings _endings;
    private int _disposed;
    private bool _deleteWhenDisposed;

    // The worker's activities hold _stopping's token: one source, given to the hub that will cancel it.
    private LocalTaskHub(AzureStorageOrchestrationService service, TaskHubWorker? worker, TaskHubClient client, TaskHubSettings settings,
        CancellationTokenSource stopping, TaskRegistry? registry, Endings endings)
    {
        _endings = endings;
        _service = service;
        _worker = worker;
        _client = client;
        Settings = settings;
        _stopping = stopping;
        _registry = registry;
    }

    public TaskHubSettings Settings { get; }

    private readonly List<IAsyncDisposable> _companions = [];

    /// <summary>Something that lives as long as this hub's worker (its roster entry): disposed first when the hub stops.</summary>
    public void DisposeWith(IAsyncDisposable companion) => _companions.Add(companion);

    /// <summary>
    /// Creates the hub's queues, tables and containers where missing, and (with a registry) starts a worker that runs
    /// its orchestrations and activities until disposed. Without one it is a client only: it starts and watches runs
    /// that other worker processes execute.
    /// </summary>
    /// <param name="workerMayStart">What must be done before the worker takes work (its roster entry): it runs while the hub is created.</param>
    public static async Task<LocalTaskHub> StartAsync(StorageTarget account, TaskHubSettings settings, TaskRegistry? registry, CancellationToken ct = default,
        Task? workerMayStart = null)
    {
        var loggers = settings.Loggers ?? NullLoggerFactory.Instance;
        var converter = new PayloadConverter(settings.PayloadObserver);
        var service = new AzureStorageOrchestrationService(new AzureStorageOrchestrationServiceSettings
        {
            TaskHubName = settings.HubName,
            StorageAccountClientProvider = Provider(account),
            WorkerId = settings.WorkerId,
            PartitionCount = settings.PartitionCount,
            MaxConcurrentTaskActivityWorkItems = settings.MaxConcurrentActivities,
            MaxConcurrentTaskOrchestrationWorkItems = settings.MaxConcurrentOrchestrations,
            ControlQueueBufferThreshold = settings.ControlQueueBufferThreshold,
            ControlQueueVisibilityTimeout = settings.VisibilityTimeout,
            WorkItemQueueVisibilityTimeout = settings.VisibilityTimeout,
            MaxQueuePollingInterval = settings.MaxPollingInterval,
            LeaseAcquireInterval = settings.PartitionBalanceInterval,
            UseTablePartitionManagement = settings.TablePartitionLeases,
            UseLegacyPartitionManagement = !settings.TablePartitionLeases,
            // The app lease keeps a second app (a deployment slot) off a hub; every local worker is one app. Its lease outlived
            // the worker and kept the hub's delete from removing the <hub>-applease container: one left behind per run.
            UseAppLease = false,
            ExtendedSessionsEnabled = settings.ExtendedSessions,
            ThrowExceptionOnInvalidDedupeStatus = true,
            LoggerFactory = loggers,
        });
        try
        {
            await service.CreateIfNotExistsAsync().WaitAsync(ct).ConfigureAwait(false);
            await (workerMayStart ?? Task.CompletedTask).WaitAsync(ct).ConfigureAwait(false);
        }
        catch
        {
            service.Dispose();
            throw;
        }
        TaskHubWorker? worker = null;
        var hub = new LocalTaskHub(service, null, new TaskHubClient(service, new CorePayloadConverter(converter), loggers), settings, new CancellationTokenSource(), registry, new Endings());
        if (registry is not null)
        {
            var shims = new DurableTaskShimFactory(new DurableTaskWorkerOptions { DataConverter = converter }, loggers);
            worker = new TaskHubWorker(service, loggers)
            {
                // Failures cross as type, message, stack and inner failure: what TaskFailedException.FailureDetails carries.
                ErrorPropagationMode = ErrorPropagationMode.UseFailureDetails,
            };
            worker.AddTaskOrchestrations(registry.OrchestrationCreators(shims));
            worker.AddTaskActivities(registry.ActivityCreators(shims, hub._stopping.Token));
            worker.AddOrchestrationDispatcherMiddleware(hub._endings.Observe);
            hub = new LocalTaskHub(service, worker, hub._client, settings, hub._stopping, registry, hub._endings);
            await worker.StartAsync().WaitAsync(ct).ConfigureAwait(false);
        }
        return hub;
    }

    /// <summary>Every status an instance can have: an id that exists in any of them is not started again.</summary>
    private static readonly OrchestrationStatus[] AnyStatus = Enum.GetValues<OrchestrationStatus>();

    public async Task<bool> TryScheduleAsync(string orchestratorName, string instanceId, object input, CancellationToken ct)
    {
        // The provider looks the id up before it starts it (one read, not a read of ours and then its own) and, with every status
        // deduplicated and ThrowExceptionOnInvalidDedupeStatus, says so: without them it would do nothing or start an ended instance afresh.
        try
        {
            await _client.CreateOrchestrationInstanceAsync(orchestratorName, "", instanceId, input, null, AnyStatus).WaitAsync(ct).ConfigureAwait(false);
            return true;
        }
        catch (OrchestrationAlreadyExistsException)
        {
            return false;
        }
    }

    public async Task<OrchestrationState?> GetStateAsync(string instanceId, CancellationToken ct) =>
        await _client.GetOrchestrationStateAsync(instanceId).WaitAsync(ct).ConfigureAwait(false) is { } s ? State(s) : null;

    public async Task<OrchestrationState> WaitForCompletionAsync(string instanceId, CancellationToken ct)
    {
        var reads = new StateReads(EndingAsync(instanceId));
        try
        {
            while (true)
            {
                if (await GetStateAsync(instanceId, ct).ConfigureAwait(false) is { } state && RuntimeStatus.IsDone(state.RuntimeStatus))
                {
                    return state;
                }
                await reads.NextAsync(StatePoll, ct).ConfigureAwait(false);
            }
        }
        finally
        {
            _endings.Forget(instanceId);
        }
    }

    public Task EndingAsync(string instanceId) => _endings.Of(instanceId);

    /// <summary>
    /// DurableTask.Core's terminate ends one instance: the run's step sub-orchestrations (ids RUN-s000, RUN-s001, …, started
    /// one after another) are terminated too, then it waits (bounded) until the run reports an end state.
    /// </summary>
    public async Task TerminateAsync(string instanceId, string reason, CancellationToken ct)
    {
        await _client.TerminateInstanceAsync(new OrchestrationInstance { InstanceId = instanceId }, reason).WaitAsync(ct).ConfigureAwait(false);
        for (int step = 0; await GetStateAsync(Engine.Planning.Planner.StepId(instanceId, step), ct).ConfigureAwait(false) is { } child; step++)
        {
            if (!RuntimeStatus.IsDone(child.RuntimeStatus))
            {
                await _client.TerminateInstanceAsync(new OrchestrationInstance { InstanceId = child.InstanceId }, reason).WaitAsync(ct).ConfigureAwait(false);
            }
        }
        using var wait = CancellationTokenSource.CreateLinkedTokenSource(ct);
        wait.CancelAfter(TimeSpan.FromSeconds(60));
        try
        {
            await WaitForCompletionAsync(instanceId, wait.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            // Still ending: the caller reports the state it then reads.
        }
    }

    /// <summary>The instance's history as the provider stores it (JSON), for tests that look at what was scheduled.</summary>
    public async Task<string> GetHistoryJsonAsync(string instanceId) =>
        await _client.GetOrchestrationStateAsync(instanceId).ConfigureAwait(false) is { } state
            ? await _client.GetOrchestrationHistoryAsync(state.OrchestrationInstance).ConfigureAwait(false)
            : throw new ArgumentException($"no instance {instanceId} in task hub {Settings.HubName}", nameof(instanceId));

    /// <summary>
    /// A run's own hub is deleted (queues, tables, lease blobs) once the run has ended and been read: nothing of it is needed
    /// again, and a store that keeps every run's hub slows down (Azurite sweeps every queue each minute).
    /// </summary>
    public void DeleteWhenDisposed() => _deleteWhenDisposed = true;

    /// <summary>Whether <paramref name="hubName"/> has an Instances table in <paramref name="store"/> (looked up without creating anything).</summary>
    public static async Task<bool> ExistsAsync(StorageTarget store, string hubName, CancellationToken ct)
    {
        var tables = store.ConnectionString is { } cs ? new Azure.Data.Tables.TableServiceClient(cs)
            : new Azure.Data.Tables.TableServiceClient(store.TableEndpoint, store.Credential ?? new DefaultAzureCredential());
        string name = hubName + "Instances";
        await foreach (var _ in tables.QueryAsync(t => t.Name == name, cancellationToken: ct).ConfigureAwait(false))
        {
            return true;
        }
        return false;
    }

    /// <summary>Stops the worker: activities still running are told to stop (as at a host's shutdown), and their messages go back to the hub.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 1)
        {
            return;
        }
        foreach (var companion in _companions)
        {
            await companion.DisposeAsync().ConfigureAwait(false);
        }
        await _stopping.CancelAsync().ConfigureAwait(false);
        if (_worker is not null)
        {
            try
            {
                // Activities still running (a worker stopping mid-run) were just told to stop: a graceful stop waits for them to
                // end and hand their messages back to the hub, so they run again on another worker within seconds, not after the
                // visibility timeout. None running (a run that has ended): forced, which does not wait on the queues' polling.
                // Releasing leases needs the hub's storage: when it is gone, give up rather than hang (the leases lapse by themselves).
                await _worker.StopAsync(isForced: _registry?.Running is not > 0).WaitAsync(StopWait).ConfigureAwait(false);
                _worker.Dispose();
            }
            catch (TimeoutException)
            {
            }
        }
        if (_deleteWhenDisposed)
        {
            try
            {
                await _service.DeleteAsync().WaitAsync(StopWait).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is TimeoutException || Engine.StorageCalls.StorageFailures.Classify(ex, CancellationToken.None) is not null)
            {
                // What is left is only the engine's, in the hub store: never the target's.
            }
        }
        _service.Dispose();
        _stopping.Dispose();
    }

    private static StorageAccountClientProvider Provider(StorageTarget account) =>
        account.ConnectionString is { } cs ? new StorageAccountClientProvider(cs)
        : (account.TableEndpoint ?? account.BlobEndpoint) is { } endpoint
            ? new StorageAccountClientProvider(Sibling(endpoint, "blob"), Sibling(endpoint, "queue"), Sibling(endpoint, "table"), account.Credential ?? new DefaultAzureCredential())
            : throw new ArgumentException("the task hub's account has neither a connection string nor endpoints", nameof(account));

    /// <summary>https://acct.table.core.windows.net/ → https://acct.queue.core.windows.net/: the hub needs all three services of the account.</summary>
    private static Uri Sibling(Uri endpoint, string service)
    {
        string[] labels = endpoint.Host.Split('.');
        if (labels.Length > 1)
        {
            labels[1] = service;
        }
        return new UriBuilder(endpoint) { Host = string.Join('.', labels) }.Uri;
    }

    private static OrchestrationState State(CoreState s) => new(
        s.OrchestrationInstance.InstanceId, s.Name, Status(s.OrchestrationStatus), Utc(s.CreatedTime), Utc(s.LastUpdatedTime), s.Status, s.Output,
        s.FailureDetails?.ErrorMessage ?? (s.OrchestrationStatus is OrchestrationStatus.Failed or OrchestrationStatus.Terminated ? s.Output : null), s.Input);

    private static DateTime Utc(DateTime t) => DateTime.SpecifyKind(t, DateTimeKind.Utc);

    /// <summary>Suspended and continued-as-new count as Running (not ended); Canceled (unused by the provider) as Terminated.</summary>
    private static string Status(OrchestrationStatus status) => status switch
    {
        OrchestrationStatus.Pending => RuntimeStatus.Pending,
        OrchestrationStatus.Completed => RuntimeStatus.Completed,
        OrchestrationStatus.Failed => RuntimeStatus.Failed,
        OrchestrationStatus.Terminated or OrchestrationStatus.Canceled => RuntimeStatus.Terminated,
        _ => RuntimeStatus.Running,
    };
}
