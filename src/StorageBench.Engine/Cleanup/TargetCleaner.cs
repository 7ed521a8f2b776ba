using System.Text.RegularExpressions;
using Azure;

namespace StorageBench.Engine.Cleanup;

/// <summary>A table or container this tool created (recognised by its name alone) and when.</summary>
/// <param name="Account">Index of the target account it is in.</param>
/// <param name="Kind">"table" or "container".</param>
public sealed record Leftover(int Account, string Kind, string Name, DateTime CreatedUtc, string StepLetters)
{
    /// <summary>The name of that account (devstoreaccount1 on Azurite).</summary>
    public string AccountName { get; init; } = "";
}

/// <summary>
/// Finds and deletes the tables and containers benchmark steps create, by the naming rule only
/// (<see cref="Planner.TryParseTargetName"/>: "sbt" or "sbb", a 14-digit UTC creation time, the step
/// id's letters and digits). Anything else in the account — results tables, other applications' data —
/// never matches, so it is never listed or touched. A target is sent requests only for the services it has: a
/// blob-only account's tables are never listed.
/// </summary>
/// <param name="sideRequests">Counts every request sent to the targets (the run's cleanup phase); null: not counted.</param>
public sealed class TargetCleaner(IReadOnlyList<StorageTarget> targets, WireCounter? sideRequests = null)
{
    /// <summary>The target accounts it looks in: the ones runs write to.</summary>
    public IReadOnlyList<StorageTarget> Targets => targets;

    public async Task<IReadOnlyList<Leftover>> ListAsync(Func<Leftover, bool> select, CancellationToken ct)
    {
        var found = new List<Leftover>();
        for (int account = 0; account < targets.Count; account++)
        {
            using var clients = targets[account].CreateSideCallClients(sideRequests);
            if (clients.Has(TargetService.Table))
            {
                await foreach (var table in clients.Tables.QueryAsync(TableFilter(), cancellationToken: ct).ConfigureAwait(false))
                {
                    Add(found, account, clients.AccountName, "table", table.Name, select);
                }
            }
            if (clients.Has(TargetService.Blob))
            {
                await foreach (var container in clients.Blobs.GetBlobContainersAsync(prefix: "sbb", cancellationToken: ct).ConfigureAwait(false))
                {
                    Add(found, account, clients.AccountName, "container", container.Name, select);
                }
            }
        }
        return found;
    }

    /// <summary>Everything this tool created at or before <paramref name="cutoffUtc"/>.</summary>
    public Task<IReadOnlyList<Leftover>> CreatedBeforeAsync(DateTime cutoffUtc, CancellationToken ct) => ListAsync(l => l.CreatedUtc <= cutoffUtc, ct);

    /// <summary>Every table and container of one run's steps, a workload's own suffix included (a page blob container ends "p").</summary>
    public Task<IReadOnlyList<Leftover>> OfRunAsync(string runId, CancellationToken ct)
    {
        var steps = new Regex("^" + Regex.Escape(Planner.TargetSuffixOf(runId)) + "s[0-9]{3}[a-z]*$", RegexOptions.CultureInvariant);
        return ListAsync(l => steps.IsMatch(l.StepLetters), ct);
    }

    public async Task DeleteAsync(IEnumerable<Leftover> leftovers, CancellationToken ct)
    {
        foreach (var group in leftovers.GroupBy(l => l.Account))
        {
            using var clients = targets[group.Key].CreateSideCallClients(sideRequests);
            foreach (var l in group)
            {
                if (l.Kind == "table")
                {
                    try
                    {
                        await clients.Tables.DeleteTableAsync(l.Name, ct).ConfigureAwait(false);
                    }
                    catch (RequestFailedException ex) when (ex.Status == 404)
                    {
                    }
                }
                else
                {
                    await clients.Blobs.GetBlobContainerClient(l.Name).DeleteIfExistsAsync(cancellationToken: ct).ConfigureAwait(false);
                }
            }
        }
    }

    private static void Add(List<Leftover> found, int account, string accountName, string kind, string name, Func<Leftover, bool> select)
    {
        if (Planner.TryParseTargetName(name, out var created, out var step))
        {
            var leftover = new Leftover(account, kind, name, created, step) { AccountName = accountName };
            if (select(leftover))
            {
                found.Add(leftover);
            }
        }
    }

    /// <summary>Table names from "sbt" up to (not including) "sbu": the service filters, the naming rule decides.</summary>
    private static string TableFilter() => "TableName ge 'sbt' and TableName lt 'sbu'";
}
