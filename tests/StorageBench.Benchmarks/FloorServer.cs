using StorageBench.Engine.Workloads.TableRead;
using System.Collections.Concurrent;
using System.Globalization;
using System.Text;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using StorageBench.Cli;

namespace StorageBench.Benchmarks;

/// <summary>One request as it arrived: what the wire-equivalence test compares.</summary>
public sealed record CapturedRequest(string Method, string Path, string Query, IReadOnlyDictionary<string, string> Headers, byte[] Body);

/// <summary>
/// A fake of Azure Storage that cannot be slower than the driver: it answers every table <c>$batch</c>,
/// single insert, table read (Get Entity, Query Entities: see <see cref="Seeded"/>), Put Block, Put Block List, page blob create and Put Blob (Put Blob), Put Page, and Get Blob (zeros) at once with a canned success that the SDK and the lean
/// driver both accept (a multipart batch response with one 204 per operation; 204 / 201 with ETag and
/// Last-Modified), a Get Blob of a blob it was given with Put Blob with that many bytes (200, or 206 for an
/// x-ms-range), everything else 404. Run in its own process, the driver's CPU against it is the
/// driver's own cost, free of Azurite's. With <c>capture</c> it also records each request (the
/// wire-equivalence test). It stores no content (only a Put Blob's length; a Get Blob's bytes are zeros):
/// what a run "wrote" cannot be verified against it, and a download's MD5 check fails there.
/// </summary>
public sealed partial class FloorServer : IAsyncDisposable
{
    private const string ETag = "W/\"datetime'2026-01-01T00%3A00%3A00.0000000Z'\"";
    private const string LastModified = "Thu, 01 Jan 2026 00:00:00 GMT";
    private readonly LoopbackServer _server;
    private readonly ConcurrentDictionary<string, long> _blobLengths = new(StringComparer.Ordinal);
    private static readonly byte[] Zeros = new byte[64 * 1024];

    private FloorServer(LoopbackServer server) => _server = server;

    public Uri Address => _server.Address;

    /// <summary>
    /// What a table GET answers: with these, entity n as tableRead seeded it (a point read by its keys, a query by its
    /// Sequence range and $top); without, an entity with its keys only and queries with no entities. It stores nothing.
    /// </summary>
    public SeededEntities? Seeded { get; set; }

    /// <summary>Requests seen, in arrival order, when started with capture.</summary>
    public ConcurrentQueue<CapturedRequest> Captured { get; } = new();

    /// <summary>A connection string addressing this server as the development account (the well-known Azurite key).</summary>
    public string ConnectionString =>
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;" +
        $"TableEndpoint={Address}devstoreaccount1;BlobEndpoint={Address}devstoreaccount1;";

    public static async Task<FloorServer> StartAsync(int port = 0, bool capture = false)
    {
        FloorServer? self = null;
        var server = await LoopbackServer.StartAsync(port, app => app.Run(ctx => self!.AnswerAsync(ctx, capture)));
        self = new FloorServer(server);
        return self;
    }

    private async Task AnswerAsync(HttpContext ctx, bool capture)
    {
        var request = ctx.Request;
        using var body = new MemoryStream();
        await request.Body.CopyToAsync(body);
        byte[] bytes = body.ToArray();
        if (capture)
        {
            Captured.Enqueue(new CapturedRequest(request.Method, request.Path.Value ?? "", request.QueryString.Value ?? "",
                request.Headers.ToDictionary(h => h.Key, h => h.Value.ToString(), StringComparer.OrdinalIgnoreCase), bytes));
        }
        var response = ctx.Response;
        response.Headers["x-ms-request-id"] = "00000000-0000-0000-0000-000000000000";
        response.Headers["x-ms-version"] = request.Headers["x-ms-version"].ToString();
        string path = request.Path.Value ?? "";
        string comp = request.Query["comp"].ToString();
        if (request.Method == "POST" && path.EndsWith("/$batch", StringComparison.Ordinal))
        {
            await BatchAnswerAsync(response, bytes);
        }
        else if (request.Method == "POST")
        {
            // A single insert sent with "Prefer: return-no-content".
            response.StatusCode = 204;
            response.Headers.ETag = ETag;
        }
        else if (request.Method == "PUT" && (comp is "block" or "blocklist" or "page" or "appendblock" || (comp.Length == 0 && request.Headers["x-ms-blob-type"].ToString() is "PageBlob" or "AppendBlob")))
        {
            response.StatusCode = 201;
            response.Headers.ETag = "\"0x8DD00000000000\"";
            response.Headers.LastModified = LastModified;
            response.Headers["x-ms-request-server-encrypted"] = "true";
            if (comp == "page")
            {
                response.Headers["x-ms-blob-sequence-number"] = "0";
            }
            if (comp == "appendblock")
            {
                response.Headers["x-ms-blob-append-offset"] = "0";
                response.Headers["x-ms-blob-committed-block-count"] = "1";
            }
        }
        else if (request.Method == "GET" && TableRead().Match(path) is { Success: true } read)
        {
            await ReadAnswerAsync(response, read, Uri.UnescapeDataString(request.Query["$filter"].ToString()), request.Query["$top"].ToString());
        }
        else if (request.Method == "PUT" && comp.Length == 0 && request.Headers["x-ms-blob-type"] == "BlockBlob")
        {
            _blobLengths[path] = bytes.Length;
            response.StatusCode = 201;
            response.Headers.ETag = "\"0x8DD00000000000\"";
            response.Headers.LastModified = LastModified;
        }
        else if (request.Method == "GET" && comp.Length == 0 && _blobLengths.TryGetValue(path, out long length))
        {
            await BlobAnswerAsync(response, request.Headers["x-ms-range"].ToString(), length);
        }
        else if (request.Method == "DELETE")
        {
            response.StatusCode = 202;
        }
        else
        {
            response.StatusCode = 404;
        }
    }

    /// <summary>The response Azurite and Azure give a successful changeset: 202 with one "204 No Content" part per operation, in order.</summary>
    private static Task BatchAnswerAsync(HttpResponse response, byte[] requestBody)
    {
        int operations = Count(requestBody, "Content-Type: application/http"u8);
        var sb = new StringBuilder();
        sb.Append("--batchresponse_floor\r\nContent-Type: multipart/mixed; boundary=changesetresponse_floor\r\n\r\n");
        for (int i = 1; i <= operations; i++)
        {
            sb.Append("--changesetresponse_floor\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n");
            sb.Append(CultureInfo.InvariantCulture, $"HTTP/1.1 204 No Content\r\nContent-ID: {i}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\nDataServiceVersion: 3.0;\r\nETag: {ETag}\r\n\r\n");
        }
        sb.Append("--changesetresponse_floor--\r\n--batchresponse_floor--\r\n");
        response.StatusCode = 202;
        response.ContentType = "multipart/mixed; boundary=batchresponse_floor";
        return response.WriteAsync(sb.ToString());
    }

    /// <summary>A table read: "/account/table(PartitionKey='…',RowKey='…')" (Get Entity) or "/account/table()" (Query Entities).</summary>
    [System.Text.RegularExpressions.GeneratedRegex(@"^/[^/]+/(?<table>[A-Za-z0-9]+)\((PartitionKey='(?<pk>[^']*)',RowKey='(?<rk>[^']*)')?\)$")]
    private static partial System.Text.RegularExpressions.Regex TableRead();

    [System.Text.RegularExpressions.GeneratedRegex(@"PartitionKey eq '(?<pk>[^']*)' and Sequence ge (?<lo>[0-9]+)L and Sequence lt (?<hi>[0-9]+)L")]
    private static partial System.Text.RegularExpressions.Regex QueryRange();

    /// <summary>Get Entity answers one entity; Query Entities a page of at most $top, with continuation headers when more is left.</summary>
    private Task ReadAnswerAsync(HttpResponse response, System.Text.RegularExpressions.Match read, string filter, string top)
    {
        string table = read.Groups["table"].Value;
        string metadata = $"\"odata.metadata\":\"{Address}devstoreaccount1/$metadata#{table}";
        response.StatusCode = 200;
        response.ContentType = "application/json;odata=minimalmetadata;streaming=true;charset=utf-8";
        if (read.Groups["pk"].Success)
        {
            string pk = read.Groups["pk"].Value, rk = read.Groups["rk"].Value;
            long n = rk.StartsWith(SeededEntities.RowKeyPrefix, StringComparison.Ordinal) && long.TryParse(rk.AsSpan(SeededEntities.RowKeyPrefix.Length), out long k) ? k : -1;
            return response.WriteAsync("{" + metadata + "/@Element\"," + EntityJson(pk, rk, n) + "}");
        }
        var range = QueryRange().Match(filter);
        var sb = new StringBuilder("{" + metadata + "\",\"value\":[");
        if (range.Success && Seeded is not null)
        {
            long lo = long.Parse(range.Groups["lo"].Value, CultureInfo.InvariantCulture) - SeededEntities.SequenceBase;
            long hi = long.Parse(range.Groups["hi"].Value, CultureInfo.InvariantCulture) - SeededEntities.SequenceBase;
            long from = lo;
            if (response.HttpContext.Request.Query["NextRowKey"].ToString() is { Length: > 0 } next)
            {
                from = long.Parse(next.AsSpan(SeededEntities.RowKeyPrefix.Length), CultureInfo.InvariantCulture);
            }
            long end = Math.Min(hi, from + (int.TryParse(top, out int t) ? t : 1000));
            for (long n = from; n < end; n++)
            {
                sb.Append(n == from ? "{" : ",{").Append(EntityJson(range.Groups["pk"].Value, SeededEntities.RowKey(n), n)).Append('}');
            }
            if (end < hi)
            {
                response.Headers["x-ms-continuation-NextPartitionKey"] = "1!8!" + range.Groups["pk"].Value;
                response.Headers["x-ms-continuation-NextRowKey"] = SeededEntities.RowKey(end);
            }
        }
        return response.WriteAsync(sb.Append("]}").ToString());
    }

    private string EntityJson(string pk, string rk, long n)
    {
        var sb = new StringBuilder();
        sb.Append(CultureInfo.InvariantCulture, $"\"odata.etag\":\"{ETag.Replace("\"", "\\\"", StringComparison.Ordinal)}\",\"PartitionKey\":\"{pk}\",\"RowKey\":\"{rk}\",");
        sb.Append("\"Timestamp@odata.type\":\"Edm.DateTime\",\"Timestamp\":\"2026-01-01T00:00:00.0000000Z\"");
        if (Seeded is { } seeded && n >= 0)
        {
            sb.Append(CultureInfo.InvariantCulture, $",\"{SeededEntities.SequenceProperty}@odata.type\":\"Edm.Int64\",\"{SeededEntities.SequenceProperty}\":\"{SeededEntities.Sequence(n)}\"");
            for (int i = 0; i < seeded.Properties; i++)
            {
                var bytes = new byte[seeded.SizeOf(i)];
                seeded.WritePayload(n, i, bytes);
                sb.Append(CultureInfo.InvariantCulture, $",\"{SeededEntities.PropertyName(i)}@odata.type\":\"Edm.Binary\",\"{SeededEntities.PropertyName(i)}\":\"{Convert.ToBase64String(bytes)}\"");
            }
        }
        return sb.ToString();
    }

    /// <summary>Get Blob's answer: the whole blob (200), or the x-ms-range asked for (206 with Content-Range), zeros either way.</summary>
    private static async Task BlobAnswerAsync(HttpResponse response, string range, long length)
    {
        long first = 0, last = length - 1;
        if (range.StartsWith("bytes=", StringComparison.Ordinal))
        {
            string[] ends = range["bytes=".Length..].Split('-');
            first = long.Parse(ends[0], CultureInfo.InvariantCulture);
            last = Math.Min(last, long.Parse(ends[1], CultureInfo.InvariantCulture));
            response.Headers["Content-Range"] = string.Create(CultureInfo.InvariantCulture, $"bytes {first}-{last}/{length}");
        }
        response.StatusCode = range.Length > 0 ? 206 : 200;
        response.ContentType = "application/octet-stream";
        response.ContentLength = last - first + 1;
        response.Headers.ETag = "\"0x8DD00000000000\"";
        response.Headers.LastModified = LastModified;
        response.Headers["x-ms-blob-type"] = "BlockBlob";
        response.Headers["Accept-Ranges"] = "bytes";
        for (long left = last - first + 1; left > 0; left -= Zeros.Length)
        {
            await response.Body.WriteAsync(Zeros.AsMemory(0, (int)Math.Min(left, Zeros.Length)));
        }
    }

    private static int Count(ReadOnlySpan<byte> haystack, ReadOnlySpan<byte> needle)
    {
        int count = 0;
        for (int at; (at = haystack.IndexOf(needle)) >= 0; haystack = haystack[(at + needle.Length)..])
        {
            count++;
        }
        return count;
    }

    public ValueTask DisposeAsync() => _server.DisposeAsync();
}
