using System.Buffers;
using System.Buffers.Text;
using System.Text;
using System.Text.Json;

namespace StorageBench.Engine.Workloads.TableRead;

/// <summary>
/// One worker's reads on the lean driver: Get Entity (<c>GET /table(PartitionKey='…',RowKey='…')</c>) and Query
/// Entities pages (<c>GET /table()?$filter=…&amp;$top=…</c>, following the x-ms-continuation-NextPartitionKey/NextRowKey
/// headers), the request Azure.Data.Tables 12.13 sends — path, query string (the filter with the <c>L</c> literal the
/// SDK's filter builder writes), headers and SharedKeyLite/SAS/bearer auth; LeanWireTests compares both on a loopback
/// server. The answer is read into one reusable buffer and checked as JSON text, key by key and the payload's base64
/// against <see cref="SeededEntities"/>, with no entity objects, dictionaries or decoded byte arrays.
/// </summary>
public sealed class LeanTableReads : ITableReads
{
    private readonly LeanRequest _request;
    private readonly WireCounter _wire;
    private readonly SeededEntities _seeded;
    private readonly string _table, _sas, _canonicalPrefix;
    private readonly TableSharedKeyLite _key = new();
    private string _partitionKey = "", _filter = "";
    private string? _nextPartitionKey, _nextRowKey;
    private long _n, _next, _hi;
    private int _pageSize;
    private bool _query;

    public LeanTableReads(LeanTransport transport, WireCounter wire, string tableName, SeededEntities seeded)
    {
        _wire = wire;
        _seeded = seeded;
        (_, _table, _sas) = TableSharedKeyLite.Table(transport, tableName);
        _canonicalPrefix = "\n/" + transport.Account.Name;
        _request = new LeanRequest(transport, HttpMethod.Get, "", 0);
        // A GET carries no body, and so no Content-Type or Content-Length, as the SDK's.
        _request.Message.Content = null;
        _request.Set("Accept", "application/json;odata=minimalmetadata");
        TableSharedKeyLite.SetCommonHeaders(_request);
    }

    public void PreparePoint(string partitionKey, long n)
    {
        (_partitionKey, _n, _query) = (partitionKey, n, false);
        SetUri($"{_table}(PartitionKey='{partitionKey}',RowKey='{SeededEntities.RowKey(n)}')?{TableSharedKeyLite.Format}{_sas}");
    }

    public void PrepareQuery(string partitionKey, long lo, long hi, int pageSize)
    {
        (_partitionKey, _next, _hi, _pageSize, _query) = (partitionKey, lo, hi, pageSize, true);
        _filter = Uri.EscapeDataString(ITableReads.QueryFilter(partitionKey, lo, hi));
        (_nextPartitionKey, _nextRowKey) = (null, null);
        SetPage();
    }

    private void SetPage()
    {
        string continuation = _nextPartitionKey is null ? "" : $"&NextPartitionKey={Uri.EscapeDataString(_nextPartitionKey)}&NextRowKey={Uri.EscapeDataString(_nextRowKey ?? "")}";
        SetUri($"{_table}()?{TableSharedKeyLite.Format}&$top={_pageSize}&$filter={_filter}{continuation}{_sas}");
    }

    private void SetUri(string uri)
    {
        _request.Message.RequestUri = new Uri(uri);
        _key.CanonicalResource = _canonicalPrefix + _request.Message.RequestUri.AbsolutePath;
    }

    public async Task<ReadAnswer> SendAsync()
    {
        _request.Set("x-ms-client-request-id", Guid.NewGuid().ToString());
        var response = await _request.Transport.SendAsync(_request, _wire, _key.Signer, 200).ConfigureAwait(false);
        try
        {
            int length = await _request.ReadAnswerAsync(response).ConfigureAwait(false);
            if (!_query)
            {
                var reader = new Utf8JsonReader(_request.Answer.AsSpan(0, length));
                reader.Read();
                return new ReadAnswer(1, CheckEntity(ref reader, _n) ? 0 : 1, false);
            }
            var (entities, wrong) = CheckPage(_request.Answer.AsSpan(0, length));
            _nextPartitionKey = Header(response, "x-ms-continuation-NextPartitionKey");
            _nextRowKey = Header(response, "x-ms-continuation-NextRowKey");
            bool more = _nextPartitionKey is not null;
            if (more)
            {
                SetPage();
            }
            return new ReadAnswer(entities, wrong, more);
        }
        finally
        {
            response.Dispose();
            _request.ResetTimer();
        }
    }

    private static string? Header(HttpResponseMessage response, string name) =>
        response.Headers.TryGetValues(name, out var values) ? values.FirstOrDefault() : null;

    /// <summary>A query page: {"odata.metadata":…,"value":[entity, …]}; the k-th entity must be entity _next + k.</summary>
    private (int Entities, int Wrong) CheckPage(ReadOnlySpan<byte> json)
    {
        var reader = new Utf8JsonReader(json);
        reader.Read();
        int entities = 0, wrong = 0;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            if (!reader.ValueTextEquals("value"u8))
            {
                reader.Read();
                reader.Skip();
                continue;
            }
            reader.Read();
            while (reader.Read() && reader.TokenType == JsonTokenType.StartObject)
            {
                wrong += _next < _hi && CheckEntity(ref reader, _next) ? 0 : 1;
                _next++;
                entities++;
            }
        }
        return (entities, wrong);
    }

    /// <summary>
    /// Reads one entity object (the reader at its StartObject, left at its EndObject) and says whether it is entity n:
    /// its keys, its Sequence (annotated Edm.Int64, as minimal metadata writes an Int64) and every payload property.
    /// </summary>
    private bool CheckEntity(ref Utf8JsonReader reader, long n)
    {
        Span<byte> rowKey = stackalloc byte[SeededEntities.RowKeyPrefix.Length + 9];
        Encoding.ASCII.GetBytes(SeededEntities.RowKeyPrefix, rowKey);
        Utf8Formatter.TryFormat(n, rowKey[SeededEntities.RowKeyPrefix.Length..], out _, new StandardFormat('D', 9));
        bool partitionOk = false, rowOk = false, sequenceOk = false, int64 = false, right = true;
        int payloads = 0;
        byte[]? rented = null;
        try
        {
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                var name = reader.ValueSpan;
                reader.Read();
                if (reader.TokenType is JsonTokenType.StartObject or JsonTokenType.StartArray)
                {
                    reader.Skip();
                    right = false;
                    continue;
                }
                if (name.SequenceEqual("PartitionKey"u8))
                {
                    partitionOk = reader.ValueTextEquals(_partitionKey);
                }
                else if (name.SequenceEqual("RowKey"u8))
                {
                    rowOk = reader.ValueTextEquals(rowKey);
                }
                else if (name.SequenceEqual("Sequence"u8))
                {
                    sequenceOk = reader.TokenType == JsonTokenType.String && Utf8Parser.TryParse(reader.ValueSpan, out long s, out int used)
                        && used == reader.ValueSpan.Length && s == SeededEntities.Sequence(n);
                }
                else if (name.SequenceEqual("Sequence@odata.type"u8))
                {
                    int64 = reader.ValueTextEquals("Edm.Int64"u8);
                }
                else if (name.Length == 3 && name[0] == 'D' && Utf8Parser.TryParse(name[1..], out int index, out int digits) && digits == 2)
                {
                    var text = reader.ValueSpan;
                    if (reader.ValueIsEscaped)
                    {
                        rented ??= ArrayPool<byte>.Shared.Rent(Base64.GetMaxEncodedToUtf8Length(Spec.ServiceLimits.MaxBinaryPropertyBytes));
                        text = rented.AsSpan(0, reader.CopyString(rented));
                    }
                    if (index < _seeded.Properties && reader.TokenType == JsonTokenType.String && _seeded.PayloadBase64Matches(n, index, text))
                    {
                        payloads++;
                    }
                    else
                    {
                        right = false;
                    }
                }
            }
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
        return right && partitionOk && rowOk && sequenceOk && int64 && payloads == _seeded.Properties;
    }

    public void Dispose() => _request.Dispose();
}
