using System.Buffers.Text;
using System.Text;
using Azure;

namespace StorageBench.Engine.Workloads.TableInsert;

/// <summary>
/// One worker's table inserts on the lean driver: an entity group transaction (<c>$batch</c>) of inserts,
/// or a single insert when the batch size is 1. It replaces Azure.Data.Tables' SubmitTransactionAsync /
/// AddEntityAsync for the measured requests, which per entity build a TableEntity dictionary, annotate
/// it, serialize it to JSON (re-encoding the identical base64 payload every time) and build a multipart
/// message per request. Here the multipart frame and the payload's JSON are encoded once per worker;
/// a request copies them into one reusable buffer, writing only the partition and row keys. The bytes
/// on the wire are what the SDK sends (Azure.Data.Tables 12.13, x-ms-version 2020-12-06): the same
/// operations, headers, multipart body (fresh boundaries per worker, not per request) and
/// SharedKeyLite/SAS/bearer auth — LeanWireTests compares both requests on a loopback server.
/// </summary>
public sealed class LeanTableInserts : ITableInserts
{
    /// <summary>An insert's query string, as Azure.Data.Tables 12.13 sends it.</summary>
    private const string FormatQuery = "?" + TableSharedKeyLite.Format;

    private readonly LeanRequest _request;
    private readonly WireCounter _wire;
    private readonly bool _single;
    private readonly byte[] _batchHead, _partHead, _afterPartition, _afterRowKey, _batchTail;
    private readonly TableSharedKeyLite _key = new();
    private readonly byte[] _rowKeyPrefix = new byte[64];
    private string? _rowKeyAttempt;
    private int _rowKeySlice = -1, _rowKeyPrefixLength;

    public LeanTableInserts(LeanTransport transport, WireCounter wire, string tableName, EntityPayload payload, int batchSize)
    {
        _wire = wire;
        _single = batchSize == 1;
        var account = transport.Account;
        var (tableEndpoint, table, sas) = TableSharedKeyLite.Table(transport, tableName);
        string payloadJson = payload.JsonProperties();
        int entityBytes = 64 + payloadJson.Length;
        if (_single)
        {
            _request = new LeanRequest(transport, HttpMethod.Post, "application/json;odata=nometadata", entityBytes);
            _request.Message.RequestUri = new Uri(table + FormatQuery + sas);
            _request.Set("Accept", "application/json;odata=minimalmetadata");
            _request.Set("Prefer", "return-no-content");
            _batchHead = _partHead = _batchTail = [];
            _afterRowKey = Encoding.UTF8.GetBytes("\"" + payloadJson + "}");
        }
        else
        {
            string batch = "batch_" + Guid.NewGuid(), changeset = "changeset_" + Guid.NewGuid();
            string part = $"--{changeset}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
                $"POST {table}{FormatQuery} HTTP/1.1\r\nHost: {tableEndpoint.Host}\r\nx-ms-version: {TableSharedKeyLite.ServiceVersion}\r\nDataServiceVersion: 3.0\r\n" +
                "Prefer: return-no-content\r\nAccept: application/json;odata=minimalmetadata\r\nContent-Type: application/json;odata=nometadata\r\n\r\n";
            _batchHead = Encoding.UTF8.GetBytes($"--{batch}\r\nContent-Type: multipart/mixed; boundary={changeset}\r\n\r\n");
            _partHead = Encoding.UTF8.GetBytes(part);
            _afterRowKey = Encoding.UTF8.GetBytes("\"" + payloadJson + "}\r\n");
            _batchTail = Encoding.UTF8.GetBytes($"--{changeset}--\r\n\r\n--{batch}--\r\n");
            _request = new LeanRequest(transport, HttpMethod.Post, "multipart/mixed; boundary=" + batch,
                _batchHead.Length + _batchTail.Length + batchSize * (_partHead.Length + _afterRowKey.Length + 128));
            _request.Message.RequestUri = new Uri($"{tableEndpoint}/$batch" + (account.Sas is { } bs ? "?" + bs : ""));
            _request.Set("Accept", "application/json");
        }
        _partHead = _single ? Encoding.UTF8.GetBytes("{\"PartitionKey\":\"") : [.. _partHead, .. "{\"PartitionKey\":\""u8];
        _afterPartition = "\",\"RowKey\":\""u8.ToArray();
        TableSharedKeyLite.SetCommonHeaders(_request);
        _key.CanonicalResource = "\n/" + account.Name + _request.Message.RequestUri!.AbsolutePath;
    }

    /// <summary>
    /// Writes the request body for <paramref name="size"/> inserts into <paramref name="partition"/>, row keys as
    /// <see cref="TableInsertSlice.RowKey"/> makes them, straight into the buffer (no key strings).
    /// </summary>
    public void Prepare(string partition, string attempt, int slice, long batch, int size)
    {
        int perEntity = _partHead.Length + partition.Length + _afterPartition.Length + 64 + _afterRowKey.Length;
        var buffer = _request.Content.Reserve(_batchHead.Length + _batchTail.Length + size * perEntity).AsSpan();
        int at = Copy(_batchHead, buffer, 0);
        for (int i = 0; i < size; i++)
        {
            at = Copy(_partHead, buffer, at);
            at += Ascii(partition, buffer[at..]);
            at = Copy(_afterPartition, buffer, at);
            at += RowKey(attempt, slice, batch, i, buffer[at..]);
            at = Copy(_afterRowKey, buffer, at);
        }
        at = Copy(_batchTail, buffer, at);
        _request.Content.SetLength(at);
    }

    /// <summary>Sends what <see cref="Prepare"/> wrote; throws as the SDK would for an answer it does not accept.</summary>
    public async Task SendAsync()
    {
        _request.Set("x-ms-client-request-id", Guid.NewGuid().ToString());
        var response = await _request.Transport.SendAsync(_request, _wire, _key.Signer, _single ? 204 : 202).ConfigureAwait(false);
        try
        {
            if (!_single)
            {
                int length = await _request.ReadAnswerAsync(response).ConfigureAwait(false);
                CheckChangeset(_request.Answer.AsSpan(0, length));
            }
        }
        finally
        {
            response.Dispose();
            _request.ResetTimer();
        }
    }


    /// <summary>
    /// A changeset is answered 202 as a whole; an operation that failed is an inner "HTTP/1.1 4xx" part, and the
    /// SDK throws TableTransactionFailedException (a RequestFailedException) with that status and error code.
    /// </summary>
    private static void CheckChangeset(ReadOnlySpan<byte> answer)
    {
        var statusLine = "HTTP/1.1 "u8;
        for (int at; (at = answer.IndexOf(statusLine)) >= 0; answer = answer[(at + statusLine.Length)..])
        {
            var status = answer.Slice(at + statusLine.Length, 3);
            if (status[0] >= (byte)'4' && Utf8Parser.TryParse(status, out int code, out _))
            {
                string body = Encoding.UTF8.GetString(answer[at..]);
                string? errorCode = LeanTransport.ErrorCodeIn(body);
                throw new RequestFailedException(code, $"The batch request failed.\nStatus: {code}\nErrorCode: {errorCode}\n\n{body}", errorCode, null);
            }
        }
    }

    private static int Copy(byte[] source, Span<byte> buffer, int at)
    {
        source.CopyTo(buffer[at..]);
        return at + source.Length;
    }

    /// <summary>Keys are the planner's and RowKey's: letters, digits and '-' — nothing JSON must escape.</summary>
    private static int Ascii(string text, Span<byte> destination)
    {
        for (int i = 0; i < text.Length; i++)
        {
            char c = text[i];
            destination[i] = c is >= ' ' and <= '~' and not '"' and not '\\' ? (byte)c : throw new InvalidOperationException($"key \"{text}\" needs JSON escaping");
        }
        return text.Length;
    }

    /// <summary>"{attempt}-{slice:D3}-{batch:D9}-{item:D2}", exactly <see cref="TableInsertSlice.RowKey"/>, in UTF-8.</summary>
    private int RowKey(string attempt, int slice, long batch, int item, Span<byte> destination)
    {
        if (!ReferenceEquals(attempt, _rowKeyAttempt) || slice != _rowKeySlice)
        {
            _rowKeyPrefixLength = Ascii($"{attempt}-{slice:D3}-", _rowKeyPrefix);
            (_rowKeyAttempt, _rowKeySlice) = (attempt, slice);
        }
        _rowKeyPrefix.AsSpan(0, _rowKeyPrefixLength).CopyTo(destination);
        int at = _rowKeyPrefixLength;
        Utf8Formatter.TryFormat(batch, destination[at..], out int written, new System.Buffers.StandardFormat('D', 9));
        at += written;
        destination[at++] = (byte)'-';
        Utf8Formatter.TryFormat(item, destination[at..], out written, new System.Buffers.StandardFormat('D', 2));
        return at + written;
    }

    public void Dispose() => _request.Dispose();
}
