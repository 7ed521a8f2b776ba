using System.Globalization;
using System.Net.Http.Headers;

namespace StorageBench.Engine.Workloads.Lean;

/// <summary>
/// Shared Key for the Blob service (version 2009-09-19 and later) over a lean request as it stands: the verb, the standard
/// headers it carries (Content-Length empty when 0), its own x-ms-* headers lower-cased and sorted by name, then its
/// canonicalized resource. So no blob request keeps a header list in step with what it sets. Written into the request's
/// scratch buffer: no string per request but the signature.
/// </summary>
public static class BlobSharedKey
{
    /// <summary>Signs every attempt of a lean blob request: x-ms-date now, then a bearer token or Shared Key (a SAS rides in the URL).</summary>
    public static readonly Func<LeanRequest, ValueTask> Signer = SignAsync;

    // The standard headers the string to sign names after the verb, in its order; Content-Length and Content-Type come from the body.
    private static readonly string[] BeforeLength = ["Content-Encoding", "Content-Language"];
    private static readonly string[] AfterType = ["Date", "If-Modified-Since", "If-Match", "If-None-Match", "If-Unmodified-Since", "Range"];

    private static async ValueTask SignAsync(LeanRequest request)
    {
        request.Set("x-ms-date", RequestDate.Now());
        var transport = request.Transport;
        if (transport.UsesToken)
        {
            request.Set("Authorization", await transport.BearerAsync().ConfigureAwait(false));
        }
        else if (transport.Account.Key is not null)
        {
            request.Set("Authorization", $"SharedKey {transport.Account.Name}:{Signature(request)}");
        }
    }

    /// <summary>base64(HMAC-SHA256(key, string to sign)) of the request as it stands.</summary>
    public static string Signature(LeanRequest request)
    {
        var text = new Scratch(request);
        var message = request.Message;
        text.Line(message.Method.Method);
        foreach (string name in BeforeLength)
        {
            text.Line(Header(message.Content?.Headers, name));
        }
        long length = message.Content is null ? 0 : request.Content.Length;
        text.Line(length == 0 ? "" : length.ToString(CultureInfo.InvariantCulture));
        text.Line(Header(message.Content?.Headers, "Content-MD5"));
        text.Line(message.Content is null ? "" : request.ContentType);
        foreach (string name in AfterType)
        {
            text.Line(Header(message.Headers, name));
        }
        foreach (var (name, value) in OwnHeaders(request))
        {
            text.Append(name);
            text.Append(":");
            text.Line(value);
        }
        text.Append(request.CanonicalPath);
        text.Append(request.CanonicalQuery);
        return request.Sign(text.Written);
    }

    private static string Header(HttpHeaders? headers, string name) =>
        headers is not null && headers.NonValidated.TryGetValues(name, out var values) ? values.ToString().Trim() : "";

    /// <summary>The request's x-ms-* headers, names lower-case, sorted by name (ordinal), each value trimmed.</summary>
    private static ReadOnlySpan<(string Name, string Value)> OwnHeaders(LeanRequest request)
    {
        var own = request.SignedHeaders;
        int count = 0;
        foreach (var header in request.Message.Headers.NonValidated)
        {
            if (header.Key.StartsWith("x-ms-", StringComparison.OrdinalIgnoreCase))
            {
                if (count == own.Length)
                {
                    Array.Resize(ref own, own.Length * 2);
                    request.SignedHeaders = own;
                }
                own[count++] = (header.Key.ToLowerInvariant(), header.Value.ToString().Trim());
            }
        }
        var span = own.AsSpan(0, count);
        span.Sort(static (a, b) => string.CompareOrdinal(a.Name, b.Name));
        return span;
    }

    /// <summary>Appends into the request's reusable scratch buffer, growing it (once, for good) when a string to sign outgrows it.</summary>
    private ref struct Scratch(LeanRequest request)
    {
        private int _written;

        public readonly ReadOnlySpan<char> Written => request.Scratch.AsSpan(0, _written);

        public void Append(ReadOnlySpan<char> text)
        {
            if (_written + text.Length > request.Scratch.Length)
            {
                var larger = new char[Math.Max(request.Scratch.Length * 2, _written + text.Length)];
                request.Scratch.AsSpan(0, _written).CopyTo(larger);
                request.Scratch = larger;
            }
            text.CopyTo(request.Scratch.AsSpan(_written));
            _written += text.Length;
        }

        public void Line(ReadOnlySpan<char> text)
        {
            Append(text);
            Append("\n");
        }
    }
}
