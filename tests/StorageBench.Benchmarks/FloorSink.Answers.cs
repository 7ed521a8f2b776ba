using System.Globalization;
using System.Text;

namespace StorageBench.Benchmarks;

/// <summary>The floor's answers: what storage answers to each request it serves.</summary>
public sealed partial class FloorSink
{
    private static readonly byte[] NoTables = """{"odata.metadata":"http://127.0.0.1/devstoreaccount1/$metadata#Tables","value":[]}"""u8.ToArray();

    /// <summary>Writes the answer to <paramref name="head"/> into <paramref name="w"/>.</summary>
    /// <param name="readBodyLength">A table read's body length (written after this head), or -1.</param>
    /// <param name="blob">A Get Blob's range and the blob's length (its zeros are sent after this head), or null.</param>
    private void Answer(Head head, ReadOnlySpan<byte> version, ReadOnlySpan<byte> requestId, int operations, Writer w, int readBodyLength, (long First, long Last, long Length)? blob)
    {
        ReadOnlySpan<byte> body = default;
        long contentLength = -1;
        if (head.IsTableRead)
        {
            if (readBodyLength > 0)
            {
                w.Put("Content-Type: application/json;odata=minimalmetadata;streaming=true;charset=utf-8\r\n"u8);
                contentLength = readBodyLength;
            }
            else
            {
                w.Reset();
                w.Put("HTTP/1.1 404 Not Found\r\nx-ms-error-code: ResourceNotFound\r\n"u8);
            }
        }
        else if (blob is { } b)
        {
            w.Reset();
            w.Put(head.HasRange ? "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes "u8 : "HTTP/1.1 200 OK\r\n"u8);
            if (head.HasRange)
            {
                w.Put(b.First).Put("-"u8).Put(b.Last).Put("/"u8).Put(b.Length).Put("\r\n"u8);
            }
            w.Put("Content-Type: application/octet-stream\r\nETag: \"0x8DD00000000000\"\r\nLast-Modified: Thu, 01 Jan 2026 00:00:00 GMT\r\nx-ms-blob-type: BlockBlob\r\nAccept-Ranges: bytes\r\n"u8);
            contentLength = b.Last - b.First + 1;
        }
        else
        {
            w.Reset();
        }
        if (head.IsTableRead || blob is not null)
        {
        }
        else if (head.IsBatch)
        {
            body = _batchBodies.GetOrAdd(operations, BatchBody);
            w.Put("HTTP/1.1 202 Accepted\r\nContent-Type: multipart/mixed; boundary=batchresponse_floor\r\n"u8);
        }
        else if (head.Method == Method.Post)
        {
            // A single insert sent with "Prefer: return-no-content".
            w.Put("HTTP/1.1 204 No Content\r\nETag: "u8).Put(TableETag).Put("\r\n"u8);
        }
        else if (head.Method == Method.Put && (head.IsBlockOrList || head.IsPage || (!head.HasComp && head.BlobType != BlobType.None)))
        {
            // Put Block, Put Block List, a page blob's create, Put Page, Put Blob.
            w.Put("HTTP/1.1 201 Created\r\nETag: \"0x8DD00000000000\"\r\nLast-Modified: Thu, 01 Jan 2026 00:00:00 GMT\r\nx-ms-request-server-encrypted: true\r\n"u8);
            if (head.IsPage)
            {
                w.Put("x-ms-blob-sequence-number: 0\r\n"u8);
            }
        }
        else if (head.Method == Method.Delete)
        {
            w.Put(head.IsTableDelete ? "HTTP/1.1 204 No Content\r\n"u8 : "HTTP/1.1 202 Accepted\r\n"u8);
        }
        else if (head.IsTableList)
        {
            // No tables: the preflight's query for a name that cannot exist.
            body = NoTables;
            w.Put("HTTP/1.1 200 OK\r\nContent-Type: application/json;odata=minimalmetadata;streaming=true;charset=utf-8\r\n"u8);
        }
        else
        {
            w.Put("HTTP/1.1 404 Not Found\r\nx-ms-error-code: ResourceNotFound\r\n"u8);
        }
        w.Put("Server: StorageBench-floor\r\nx-ms-request-id: 00000000-0000-0000-0000-000000000000\r\nDate: "u8).Put(HttpDate.Now).Put("\r\n"u8);
        if (!version.IsEmpty)
        {
            w.Put("x-ms-version: "u8).Put(version).Put("\r\n"u8);
        }
        if (!requestId.IsEmpty)
        {
            w.Put("x-ms-client-request-id: "u8).Put(requestId).Put("\r\n"u8);
        }
        w.Put("Content-Length: "u8).Put(head.Method == Method.Head ? 0 : contentLength >= 0 ? contentLength : body.Length).Put("\r\n\r\n"u8);
        if (head.Method != Method.Head)
        {
            w.Put(body);
        }
    }

    /// <summary>The body Azurite and Azure answer a successful changeset with: one "204 No Content" part per operation, in order.</summary>
    private static byte[] BatchBody(int operations)
    {
        var sb = new StringBuilder();
        sb.Append("--batchresponse_floor\r\nContent-Type: multipart/mixed; boundary=changesetresponse_floor\r\n\r\n");
        for (int i = 1; i <= operations; i++)
        {
            sb.Append("--changesetresponse_floor\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n");
            sb.Append(CultureInfo.InvariantCulture, $"HTTP/1.1 204 No Content\r\nContent-ID: {i}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\nDataServiceVersion: 3.0;\r\nETag: {TableETag}\r\n\r\n");
        }
        sb.Append("--changesetresponse_floor--\r\n--batchresponse_floor--\r\n");
        return Encoding.ASCII.GetBytes(sb.ToString());
    }
}
