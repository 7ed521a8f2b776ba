using Azure.Data.Tables;
using StorageBench.Engine.StorageCalls;

namespace StorageBench.Engine.ResultsStore;

/// <summary>
/// The results tables: one row per run (PartitionKey = scenario, RowKey = inverted ticks so the newest
/// sorts first) — for a sweep or search one row per step value plus one for the run — and, in a
/// second table, one row per slice execution (PartitionKey = run id). Numbers are typed columns
/// (Int64 counts and bytes, Double rates and latencies), never strings. A third table holds what
/// running runs say to each other: cancel requests, which every slice polls, and each slice's live
/// progress (PartitionKey = run id).
///
/// This file holds the store's life and the run and step rows it writes; its other rooms: slices
/// (ResultsTableStore.Slices.cs), signals (….Signals.cs), queries (….Queries.cs) and baselines
/// (….Baselines.cs). What the rows hold is mapped in <see cref="RunRows"/> and <see cref="SliceRows"/>.
/// </summary>
public sealed partial class ResultsTableStore(StorageTarget target, string runsTable = ResultsTableStore.DefaultRunsTable,
    string slicesTable = ResultsTableStore.DefaultSlicesTable, string signalsTable = ResultsTableStore.DefaultSignalsTable, StorageCallPolicy? policy = null) : IDisposable
{
    public const string DefaultRunsTable = "StorageBenchRuns";
    public const string DefaultSlicesTable = "StorageBenchSlices";
    public const string DefaultSignalsTable = "StorageBenchSignals";

    /// <summary>The account the results tables live in (checked before a run is accepted).</summary>
    public StorageTarget Target => target;

    // One client pipeline for the store's life (retries on: bookkeeping, not measurement), and a quick
    // one for the cancel poll and progress, which must answer within seconds or not at all.
    private readonly Lazy<StorageClients> _clients = new(() => target.CreateClients(new()
        { SdkRetries = true, RequestTimeoutSeconds = (policy ?? StorageCallPolicy.Default).ResultsTry.TotalSeconds }));
    private readonly Lazy<StorageClients> _poll = new(() => target.CreateClients(new()
        { SdkRetries = false, RequestTimeoutSeconds = (policy ?? StorageCallPolicy.Default).Quick.TotalSeconds }));
    private readonly System.Collections.Concurrent.ConcurrentDictionary<string, Lazy<Task>> _created = new();

    /// <summary>The deadlines of the calls outside the measured path: this store's own, and the activities' around it.</summary>
    public StorageCallPolicy Policy { get; } = policy ?? StorageCallPolicy.Default;

    public void Dispose()
    {
        if (_clients.IsValueCreated)
        {
            _clients.Value.Dispose();
        }
        if (_poll.IsValueCreated)
        {
            _poll.Value.Dispose();
        }
    }

    public static string RunRowKey(DateTime startedUtc, string runId) => RunRows.RunRowKey(startedUtc, runId);

    /// <summary>A step's row: for a plain run the run row itself, for a sweep or search the row of its value (RowKey suffix -000, -001, …).</summary>
    public async Task SaveStepAsync(StepRecord step, CancellationToken ct)
    {
        var runs = await TableAsync(runsTable, ct).ConfigureAwait(false);
        await runs.UpsertEntityAsync(RunRows.StepRow(step), TableUpdateMode.Replace, ct).ConfigureAwait(false);
    }

    /// <summary>
    /// The run's own record once every step is done: status, errors and end time (merged into the run
    /// row of a plain run), the regression verdict, and for a sweep or search its own row with the parameter and the result.
    /// </summary>
    public async Task SaveRunAsync(RunSummary run, CancellationToken ct)
    {
        var runs = await TableAsync(runsTable, ct).ConfigureAwait(false);
        await runs.UpsertEntityAsync(RunRows.RunRow(run), TableUpdateMode.Merge, ct).ConfigureAwait(false);
    }

    /// <summary>Every row of an assembled summary (tests and imports): one per step, and the run's own.</summary>
    public async Task SaveAsync(RunSummary summary, CancellationToken ct)
    {
        var steps = summary.Workloads.GroupBy(w => w.StepValue).Select((g, i) => new StepRecord(summary.RunId, summary.Spec?.Scenario ?? "", summary.StartedUtc,
            summary.EndedUtc, summary.Environment, i, g.First().StepParameter, g.Key, summary.Status, summary.Errors, [.. g]) { Notes = summary.Notes });
        foreach (var step in steps)
        {
            await SaveStepAsync(step, ct).ConfigureAwait(false);
        }
        await SaveRunAsync(summary, ct).ConfigureAwait(false);
    }

    /// <summary>The table, created on first use by this store (a failed creation is tried again next time).</summary>
    private async Task<TableClient> TableAsync(string name, CancellationToken ct)
    {
        var table = _clients.Value.Tables.GetTableClient(name);
        var created = _created.GetOrAdd(name, _ => new Lazy<Task>(() => table.CreateIfNotExistsAsync(CancellationToken.None)));
        try
        {
            await created.Value.WaitAsync(ct).ConfigureAwait(false);
        }
        catch
        {
            _created.TryRemove(name, out _);
            throw;
        }
        return table;
    }

    private async Task<bool> ExistsAsync(string table, CancellationToken ct)
    {
        await foreach (var _ in _clients.Value.Tables.QueryAsync(TableClient.CreateQueryFilter($"TableName eq {table}"), cancellationToken: ct))
        {
            return true;
        }
        return false;
    }
}
