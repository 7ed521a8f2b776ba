using System.Net;
using System.Net.Sockets;
using System.Text.Json;
using System.Xml;
using System.Xml.Linq;
using Azure;
using Azure.Identity;

namespace StorageBench.Engine.StorageCalls;

/// <summary>What kind of storage failure a call outside the measured path met.</summary>
public enum StorageFailureKind
{
    /// <summary>The service answered with an error status (403, 404, 409, 503 …).</summary>
    Refused,
    /// <summary>No answer in time: the SDK's network timeout, or the call's own deadline.</summary>
    TimedOut,
    /// <summary>No answer at all: connection refused or reset, DNS, TLS, a dropped response.</summary>
    Unreachable,
    /// <summary>No token: Azure.Identity could not authenticate (managed identity, DefaultAzureCredential).</summary>
    Authentication,
}

/// <summary>A classified storage failure, with a one-line text built from its status and error code (never parsed from message text).</summary>
public sealed record StorageFailure(StorageFailureKind Kind, string Text, int Status = 0, string? ErrorCode = null);

/// <summary>
/// The one classification of storage failures for every call outside the measured path (progress, cancel
/// polls, results rows, verification, cleanup, reading results back). The measured path counts outcomes
/// with <see cref="Measurement.OutcomeClassifier"/> instead: there every failure is a figure.
/// </summary>
public static class StorageFailures
{
    /// <summary>
    /// The failure <paramref name="ex"/> stands for, or null when it is not a storage failure (a bug) or it is
    /// the caller's own cancellation. Azure.Core reports its network timeout as a TaskCanceledException that
    /// the caller's token did not cause: that is a timeout, not a cancel.
    /// </summary>
    public static StorageFailure? Classify(Exception ex, CancellationToken callerToken)
    {
        switch (ex)
        {
            case OperationCanceledException when callerToken.IsCancellationRequested:
                return null;
            case RequestFailedException { Status: > 0 and < 400 } r:
                // An answer the SDK could not read (cut off, or not what the API returns).
                return new StorageFailure(StorageFailureKind.Unreachable, $"{r.Status}: an answer the client could not read", r.Status, r.ErrorCode);
            case RequestFailedException { Status: > 0 } r:
            {
                var (bodyCode, bodyMessage) = ServiceError(r.GetRawResponse());
                string? errorCode = r.ErrorCode ?? bodyCode;
                return new StorageFailure(StorageFailureKind.Refused, StatusText(r.Status, errorCode, bodyMessage ?? r.GetRawResponse()?.ReasonPhrase), r.Status, errorCode);
            }
            case RequestFailedException { InnerException: { } inner }:
                return Classify(inner, callerToken) ?? new StorageFailure(StorageFailureKind.Unreachable, "no answer: " + inner.GetType().Name);
            case RequestFailedException r:
                return new StorageFailure(StorageFailureKind.Unreachable, "no answer" + (r.ErrorCode is { } code ? " (" + code + ")" : ""));
            case AuthenticationFailedException:
                return new StorageFailure(StorageFailureKind.Authentication, "authentication failed: " + FirstLine(ex.Message));
            case OperationCanceledException or TimeoutException:
                return new StorageFailure(StorageFailureKind.TimedOut, "no answer within the request timeout");
            case HttpRequestException { HttpRequestError: var error } h:
                return new StorageFailure(StorageFailureKind.Unreachable, h.InnerException is SocketException socket ? SocketText(socket) : "network error (" + error + ")");
            case SocketException s:
                return new StorageFailure(StorageFailureKind.Unreachable, SocketText(s));
            case FileNotFoundException or DirectoryNotFoundException or PathTooLongException or DriveNotFoundException:
                // A local file or folder, never a storage answer.
                return null;
            case IOException:
                return new StorageFailure(StorageFailureKind.Unreachable, "connection dropped");
            case AggregateException { InnerExceptions.Count: > 0 } agg:
                // SDK retries exhausted: every try is inside; the last one says how it ended.
                return Classify(agg.InnerExceptions[^1], callerToken) is { } last
                    ? last with { Text = $"{last.Text} (after {agg.InnerExceptions.Count} tries)" }
                    : null;
            default:
                return null;
        }
    }

    /// <summary>
    /// "403 AuthorizationFailure: Server failed to authenticate the request…", from the response's status, its
    /// x-ms-error-code and its reason phrase (Azure Storage puts its error message there), never from message text.
    /// </summary>
    public static string StatusText(int status, string? errorCode, string? reason = null) =>
        $"{status} {(string.IsNullOrEmpty(errorCode) ? ((HttpStatusCode)status).ToString() : errorCode)}{(string.IsNullOrWhiteSpace(reason) ? "" : ": " + reason.Trim())}";

    /// <summary>
    /// The service's error code and message from the response body, read as the structure it is (JSON for tables,
    /// XML for blobs) — for responses whose code the SDK did not surface (a table query's 403).
    /// </summary>
    private static (string? Code, string? Message) ServiceError(Response? response)
    {
        try
        {
            string body = response?.Content?.ToString() ?? "";
            if (body.StartsWith('{'))
            {
                using var json = JsonDocument.Parse(body);
                var error = json.RootElement.TryGetProperty("odata.error", out var e) ? e : json.RootElement.TryGetProperty("error", out var e2) ? e2 : default;
                if (error.ValueKind == JsonValueKind.Object)
                {
                    string? code = error.TryGetProperty("code", out var c) ? c.GetString() : null;
                    var m = error.TryGetProperty("message", out var mm) ? mm : default;
                    string? message = m.ValueKind == JsonValueKind.Object && m.TryGetProperty("value", out var v) ? v.GetString()
                        : m.ValueKind == JsonValueKind.String ? m.GetString() : null;
                    return (code, message is null ? null : FirstLine(message));
                }
            }
            else if (body.TrimStart('\uFEFF').StartsWith('<'))
            {
                var root = XDocument.Parse(body.TrimStart('\uFEFF')).Root;
                return (root?.Element("Code")?.Value, root?.Element("Message")?.Value is { } message ? FirstLine(message) : null);
            }
        }
        catch (Exception ex) when (ex is JsonException or XmlException or InvalidOperationException)
        {
            // Not the service's error format: the status and reason phrase say what there is.
        }
        return (null, null);
    }

    private static string SocketText(SocketException s) => $"network error ({s.SocketErrorCode})";

    private static string FirstLine(string text)
    {
        int end = text.IndexOfAny(['\r', '\n']);
        return end < 0 ? text : text[..end];
    }
}
