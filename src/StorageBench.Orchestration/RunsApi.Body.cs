namespace StorageBench.Orchestration;

/// <summary>The request body of POST /api/runs, read the same way by every host: its size, its Content-Type and its encoding.</summary>
public sealed partial class RunsApi
{
    /// <summary>The largest request body read: a run spec is a few KB.</summary>
    public const int MaxBodyBytes = 1024 * 1024;

    /// <summary>
    /// A larger body, up to this size, is read to its end and dropped before the 413 is sent: most clients (HttpClient among
    /// them) read no answer while they are still sending, so answering early would look to them like a broken connection.
    /// </summary>
    public const long DrainBytes = 256L * 1024 * 1024;

    /// <summary>The 413 answer, in the one error shape: what this API says and what a host's own body limit says too.</summary>
    public static ApiResponse TooLarge() =>
        ApiResponse.Error(413, $"the request body is larger than {MaxBodyBytes:N0} bytes: a run spec is a JSON object of a few KB; nothing was started");

    /// <summary>
    /// The request body as text, or the answer that refuses it, in the one error shape: 413 when it is larger than
    /// <see cref="MaxBodyBytes"/>, 415 when its Content-Type is not a run spec's (<see cref="ContentTypeError"/>), 400 when it is not
    /// UTF-8. Keeps no more than <see cref="MaxBodyBytes"/> in memory, whatever the body's size; read to its end before refusing.
    /// </summary>
    public static async Task<(string? Body, ApiResponse? Refused)> ReadBodyAsync(Stream body, long? contentLength, string? contentType, CancellationToken ct)
    {
        var buffer = new MemoryStream();
        byte[] chunk = new byte[64 * 1024];
        long total = 0;
        int read;
        while (contentLength is null or <= DrainBytes && total <= DrainBytes
            && (read = await body.ReadAsync(chunk, ct).ConfigureAwait(false)) > 0)
        {
            total += read;
            if (total <= MaxBodyBytes)
            {
                buffer.Write(chunk, 0, read);
            }
        }
        if (total > MaxBodyBytes || contentLength > MaxBodyBytes)
        {
            return (null, TooLarge());
        }
        if (RefusedContentType(contentType) is { } wrongType)
        {
            return (null, wrongType);
        }
        // As the CLI reads a file: UTF-8, a byte order mark skipped; anything else is refused, never decoded into replacement characters.
        var bytes = buffer.GetBuffer().AsSpan(0, (int)buffer.Length);
        int bom = bytes.StartsWith(System.Text.Encoding.UTF8.Preamble) ? System.Text.Encoding.UTF8.Preamble.Length : 0;
        try
        {
            return (StrictUtf8.GetString(bytes[bom..]), null);
        }
        catch (System.Text.DecoderFallbackException ex)
        {
            string where = ex.BytesUnknown is [var first, ..] ? $"byte 0x{first:X2} at offset {bom + Math.Max(ex.Index, 0):N0}" : "a byte";
            return (null, ApiResponse.FieldError(400, "; nothing was started",
                new ValidationError("body", where, "is not UTF-8: a run spec is JSON in UTF-8 (a byte order mark is allowed)")));
        }
    }

    private static readonly System.Text.UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>The 415 for a Content-Type that is not a run spec's (<see cref="ContentTypeError"/>), or null.</summary>
    public static ApiResponse? RefusedContentType(string? contentType) =>
        ContentTypeError(contentType) is { } wrongType ? ApiResponse.FieldError(415, "; nothing was started", wrongType) : null;

    /// <summary>
    /// Why a request's Content-Type is not a run spec's, or null: JSON (application/json, text/json, any +json) or none at all
    /// are read as the CLI reads a file; any other type or a charset other than UTF-8 is refused (415), so a body meant as
    /// something else is not taken for a spec. That includes the three a browser sends cross-site without asking first
    /// (application/x-www-form-urlencoded, multipart/form-data, text/plain): a page elsewhere cannot post a spec as a form.
    /// </summary>
    public static ValidationError? ContentTypeError(string? contentType)
    {
        if (string.IsNullOrWhiteSpace(contentType))
        {
            return null;
        }
        ValidationError Refused(string rule) => new("Content-Type", $"\"{contentType}\"", rule);
        if (!System.Net.Http.Headers.MediaTypeHeaderValue.TryParse(contentType, out var type) || type.MediaType is not { } media
            || !(media.Equals("application/json", StringComparison.OrdinalIgnoreCase) || media.Equals("text/json", StringComparison.OrdinalIgnoreCase)
                || media.EndsWith("+json", StringComparison.OrdinalIgnoreCase)))
        {
            return Refused("is not a run spec's: send application/json (curl: -H \"Content-Type: application/json\")");
        }
        return type.CharSet is { } charset && !charset.Trim('"').Replace("-", "", StringComparison.Ordinal).Equals("utf8", StringComparison.OrdinalIgnoreCase)
            ? Refused("names a charset other than UTF-8: a run spec is JSON in UTF-8")
            : null;
    }
}
