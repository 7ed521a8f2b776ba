using System.Text.Json;
using System.Text.Json.Nodes;
using StorageBench.Engine;

namespace StorageBench.Orchestration;

/// <summary>An HTTP answer without an HTTP framework: status code, JSON body, and the Location header when there is one.</summary>
public sealed record ApiResponse(int StatusCode, JsonNode Body, string? Location = null)
{
    /// <summary>
    /// What a 202 tells a poller to wait before asking again (Retry-After), as Durable's status endpoints and Azure's
    /// long-running-operation convention do: a run's progress moves about once a second, so a few seconds loses nothing.
    /// </summary>
    public const int RetryAfterSeconds = 2;

    /// <summary>The headers every host sends with this answer: Location when there is one, Retry-After on a 202.</summary>
    public IEnumerable<(string Name, string Value)> Headers
    {
        get
        {
            if (Location is { } location)
            {
                yield return ("Location", location);
            }
            if (StatusCode == 202)
            {
                yield return ("Retry-After", RetryAfterSeconds.ToString(System.Globalization.CultureInfo.InvariantCulture));
            }
        }
    }

    /// <summary>Quotes in messages stay plain quotes (\" in JSON), not \u0022: the answer is read by people too.</summary>
    private static readonly JsonSerializerOptions Readable = new(JsonDefaults.Options) { Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    public string Json => Body.ToJsonString(Readable);

    /// <summary>Set for a page (the dashboard, a run's report): hosts send it as text/html instead of <see cref="Body"/>.</summary>
    public string? Html { get; init; }

    /// <summary>What the host writes: the page or the JSON, and its content type.</summary>
    public (string Content, string ContentType) Content => Html is { } html ? (html, "text/html; charset=utf-8") : (Json, "application/json");

    public static ApiResponse Page(string html) => new(200, new JsonObject()) { Html = html };

    /// <summary>
    /// Every 4xx and 5xx answer has this one shape: {"status", "message" (one line), "errors": [{"field", "value", "rule", "message"}]},
    /// errors empty when the failure is not about a field.
    /// </summary>
    public static ApiResponse Error(int status, string message, IEnumerable<ValidationError>? errors = null) => new(status, new JsonObject
    {
        ["status"] = status,
        ["message"] = message,
        ["errors"] = new JsonArray([.. (errors ?? []).Select(e => (JsonNode)new JsonObject
        {
            ["field"] = e.Field,
            ["value"] = e.Value,
            ["rule"] = e.Rule,
            ["message"] = e.ToString(),
        })]),
    });

    /// <summary>The fields at fault as the message too: "last: \"0\" must be …", joined by "; ", then <paramref name="tail"/>.</summary>
    public static ApiResponse FieldError(int status, string tail, params ValidationError[] errors) =>
        Error(status, string.Join("; ", errors.Select(e => e.ToString())) + tail, errors);

    /// <summary>A failure the API did not expect (500): its type and compacted message; the caller logs the exception whole.</summary>
    public static ApiResponse Unexpected(Exception ex) => Error(500, $"{ex.GetType().Name}: {ErrorText.Compact(ex.Message)}");
}
