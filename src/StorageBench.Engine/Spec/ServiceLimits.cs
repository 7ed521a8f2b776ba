namespace StorageBench.Engine.Spec;

/// <summary>Azure Storage limits the validator enforces, so a spec fails here rather than mid-run.</summary>
public static class ServiceLimits
{
    public const int MaxBatchSize = 100;                       // entity group transaction
    public const int MaxTransactionPayloadBytes = 4 * 1024 * 1024;
    public const int MaxEntityBytes = 1024 * 1024;
    public const int MaxBinaryPropertyBytes = 64 * 1024;
    /// <summary>Room left in an entity for keys, property names and system properties.</summary>
    public const int EntityOverheadBytes = 8 * 1024;
    public const int MaxEntityPayloadBytes = MaxEntityBytes - EntityOverheadBytes;
    public const int MaxBlocksPerBlob = 50_000;
    public const long MaxBlockBytes = 4000L * 1024 * 1024;
    /// <summary>Not a service limit: the most parallel activities one run fans out per workload.</summary>
    public const int MaxSlices = 256;
    /// <summary>Not a service limit: each slice holds one shared block buffer in memory.</summary>
    public const int MaxDriverBlockBytes = 256 * 1024 * 1024;
    /// <summary>Put Blob (one request, version 2019-12-12 and later): 5000 MiB.</summary>
    public const long MaxPutBlobBytes = 5000L * 1024 * 1024;

    /// <summary>Bytes one entity occupies on the wire: binary properties travel base64-encoded in JSON.</summary>
    public static long EncodedEntityBytes(int payloadBytes) => 4L * ((payloadBytes + 2) / 3) + 512;

    /// <summary>A page blob is written in pages: its size, and every Put Page's offset and length, are multiples of this.</summary>
    public const int PageBytes = 512;
    /// <summary>The largest page blob.</summary>
    public const long MaxPageBlobBytes = 8L * 1024 * 1024 * 1024 * 1024;
    /// <summary>The most one Put Page may write.</summary>
    public const int MaxPutPageBytes = 4 * 1024 * 1024;
}
