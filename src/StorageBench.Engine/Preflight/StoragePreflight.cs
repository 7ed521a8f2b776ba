using Microsoft.Extensions.Logging.Abstractions;
using StorageBench.Engine.Logging;
using StorageBench.Engine.StorageCalls;

namespace StorageBench.Engine.Preflight;

/// <summary>Why a run was not accepted: the account and endpoint that refused or did not answer, the cause and a hint.</summary>
/// <param name="Refused">The service answered with a refusal (a bad key, a missing account): the request is at fault (HTTP 400).
/// False when nothing answered in time (HTTP 503: try again once it is reachable).</param>
public sealed record PreflightFailure(string Account, string Service, Uri? Endpoint, bool Refused, string Cause, string Hint)
{
    /// <summary>
    /// Set when a workload needs a service the target has no endpoint for (<see cref="TargetServices.Refusal"/>): bad input,
    /// found before any request (the CLI's exit 2); the line itself.
    /// </summary>
    public string? MissingEndpoint { get; init; }

    /// <summary>What the account is for when it is not a target (the control plane, a results store), first in the line; null for a target.</summary>
    public string? Role { get; init; }

    /// <summary>One line: "storage account devstoreaccount1, table endpoint http://…: 403 AuthorizationFailure: check …; nothing was started".</summary>
    public string Message => MissingEndpoint ?? StorageTarget.Redact(
        $"{(Role is null ? "" : Role + ": ")}storage account {Account}, {Service} endpoint {Endpoint}: {Cause}: {Hint}; nothing was started");

    public override string ToString() => Message;
}

/// <summary>
/// Before a run is accepted: first, without a request, that every target has an endpoint for each service the
/// spec's workloads use (<see cref="TargetServices.Refusal"/>); then one cheap, authenticated, read-only request per
/// target account endpoint the spec's workloads use (List Tables or List Containers, filtered to a name that cannot
/// exist) and to the results table, all at once, each with a short deadline and no retries. A wrong key or an
/// unreachable account is then one line within seconds, instead of a started run that fails in every activity.
/// </summary>
/// <param name="results">The results store, checked too; null: the targets only (the CLI checks them while its hub store starts).</param>
/// <param name="resultsRole">What <paramref name="results"/> is, in words, first in its failure's line (so a dead control plane is never taken for the target).</param>
public sealed class StoragePreflight(IReadOnlyList<StorageTarget> targets, StorageTarget? results, ILogger? logger = null, string resultsRole = "the results store")
{
    private readonly ILogger _logger = logger ?? NullLogger.Instance;

    /// <summary>Each request's deadline: an endpoint that has not answered by then is unreachable.</summary>
    public static readonly TimeSpan RequestTimeout = TimeSpan.FromSeconds(5);

    private const string NoSuchName = "sbpreflight0none";

    private readonly WireCounter _targetRequests = new();

    /// <summary>Requests the checks sent to the target accounts, counted on the wire (the results store's own check is not: it is not the target).</summary>
    public long TargetRequests => _targetRequests.Sent;

    /// <summary>Null when every endpoint answered and accepted the credentials; else the first failure (targets in order, then results).</summary>
    public async Task<PreflightFailure?> CheckAsync(RunSpec spec, CancellationToken ct)
    {
        if (TargetServices.Refusal(spec, targets, results) is { } missing)
        {
            return new PreflightFailure("", "", null, Refused: true, "", "") { MissingEndpoint = missing };
        }
        var needed = TargetServices.Needed(spec).Select(n => n.Service).ToHashSet();
        var checks = new List<Task<PreflightFailure?>>();
        foreach (var target in targets)
        {
            // A results table in a target account (STORAGEBENCH_RESULTS_* may put it there) is checked once, as the target's.
            if (needed.Contains(TargetService.Table) || target == results)
            {
                checks.Add(CheckAsync(target, table: true, _targetRequests, ct));
            }
            if (needed.Contains(TargetService.Blob))
            {
                checks.Add(CheckAsync(target, table: false, _targetRequests, ct));
            }
        }
        if (results is not null && !targets.Contains(results))
        {
            checks.Add(CheckAsync(results, table: true, sideRequests: null, ct, resultsRole));
        }
        var failures = await Task.WhenAll(checks).ConfigureAwait(false);
        return failures.FirstOrDefault(f => f is not null);
    }

    private async Task<PreflightFailure?> CheckAsync(StorageTarget target, bool table, WireCounter? sideRequests, CancellationToken ct, string? role = null)
    {
        using var clients = target.CreateClients(new ClientSettings { SdkRetries = false, RequestTimeoutSeconds = RequestTimeout.TotalSeconds }, sideRequests);
        // A token (managed identity) is fetched outside the request's own network timeout: bound the whole check too.
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(ct);
        deadline.CancelAfter(RequestTimeout + TimeSpan.FromSeconds(2));
        string account = table ? clients.Tables.AccountName : clients.Blobs.AccountName;
        var endpoint = table ? clients.Tables.Uri : clients.Blobs.Uri;
        try
        {
            if (table)
            {
                await foreach (var _ in clients.Tables.QueryAsync($"TableName eq '{NoSuchName}'", maxPerPage: 1, deadline.Token).ConfigureAwait(false))
                {
                    break;
                }
            }
            else
            {
                await foreach (var _ in clients.Blobs.GetBlobContainersAsync(prefix: NoSuchName, cancellationToken: deadline.Token).ConfigureAwait(false))
                {
                    break;
                }
            }
            return null;
        }
        catch (Exception ex) when (!ct.IsCancellationRequested)
        {
            var (refused, cause, hint) = Explain(ex);
            var failure = new PreflightFailure(account, table ? "table" : "blob", endpoint, refused, cause, hint) { Role = role };
            _logger.PreflightRefused(ex, failure.Message);
            return failure;
        }
    }

    /// <summary>
    /// What went wrong, classified as every call outside the measured path is (<see cref="StorageFailures"/>): in the
    /// service's terms (status and error code) where it answered, and what to check.
    /// </summary>
    internal static (bool Refused, string Cause, string Hint) Explain(Exception ex)
    {
        var failure = StorageFailures.Classify(ex, CancellationToken.None);
        // Storage stamps every answer, its errors too, with x-ms-request-id: an error without one (a web server's 404 page)
        // came from another server. Something that answered, but not in the service's JSON (tables) or XML (blobs), neither.
        if (Flatten(ex).OfType<Azure.RequestFailedException>().Any(r => r.GetRawResponse() is { } raw && !raw.Headers.Contains("x-ms-request-id"))
            || failure is { Kind: StorageFailureKind.Unreachable, Status: > 0 } || Flatten(ex).Any(e => e is System.Text.Json.JsonException or System.Xml.XmlException))
        {
            // Retrying will not help.
            return (true, "it did not answer as Azure Storage does (an answer that is not the service's JSON or XML)",
                "check that the endpoint is a storage account's or Azurite's, not another server's");
        }
        switch (failure?.Kind)
        {
            case StorageFailureKind.Refused:
                string cause = $"{failure.Status} {failure.ErrorCode ?? ((System.Net.HttpStatusCode)failure.Status).ToString()}";
                return (true, cause, failure.Status switch
                {
                    403 or 401 => "check the account key or SAS in the connection string (or, with a managed identity, its role assignment on the account)",
                    404 => "check the account name and the endpoint",
                    >= 500 => "the service is failing; try again later",
                    _ => failure.Text,
                });
            case StorageFailureKind.Authentication:
                return (true, "no token: " + failure.Text, "check the identity (AZURE_CLIENT_ID, az login) and its access to the account");
            case StorageFailureKind.TimedOut:
                // The request's deadline passed (Azure.Core's network timeout, or the check's own): whatever the socket said then.
                return (false, $"no answer within {RequestTimeout.TotalSeconds:0} s", "check the endpoint, the network and any firewall, and that the account or emulator is up");
        }
        if (Flatten(ex).OfType<System.Net.Sockets.SocketException>().FirstOrDefault() is { } socket)
        {
            return (false, FirstLine(socket.Message), socket.SocketErrorCode switch
            {
                System.Net.Sockets.SocketError.HostNotFound or System.Net.Sockets.SocketError.NoData => "check the account name and the endpoint's host name",
                System.Net.Sockets.SocketError.ConnectionRefused => "nothing listens there: check the endpoint's port, and that the account or emulator is up",
                _ => "check the endpoint, the network and any firewall",
            });
        }
        return (false, failure?.Text ?? FirstLine(ex.Message), "check the endpoint and the network");
    }

    private static IEnumerable<Exception> Flatten(Exception ex)
    {
        for (var e = ex; e is not null; e = e.InnerException)
        {
            yield return e;
            if (e is AggregateException aggregate)
            {
                foreach (var inner in aggregate.InnerExceptions.SelectMany(Flatten))
                {
                    yield return inner;
                }
                yield break;
            }
        }
    }

    private static string FirstLine(string text) => text.Split('\n', 2)[0].Trim();
}
