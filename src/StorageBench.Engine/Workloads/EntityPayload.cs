using System.Security.Cryptography;
using Azure.Data.Tables;

namespace StorageBench.Engine.Workloads;

/// <summary>
/// An entity's payload split into binary properties of at most 64 KiB (the service's property limit).
/// The byte arrays are built once per slice and shared by every entity: inserting allocates no payload.
/// </summary>
public sealed class EntityPayload
{
    private readonly (string Name, byte[] Value)[] _properties;

    public EntityPayload(int sizeBytes)
    {
        var full = RandomBytes(Math.Min(sizeBytes, ServiceLimits.MaxBinaryPropertyBytes));
        int count = (sizeBytes + ServiceLimits.MaxBinaryPropertyBytes - 1) / ServiceLimits.MaxBinaryPropertyBytes;
        _properties = new (string, byte[])[count];
        for (int i = 0; i < count; i++)
        {
            int size = Math.Min(ServiceLimits.MaxBinaryPropertyBytes, sizeBytes - i * ServiceLimits.MaxBinaryPropertyBytes);
            _properties[i] = ($"D{i:D2}", size == full.Length ? full : full[..size]);
        }
    }

    public TableEntity NewEntity(string partitionKey, string rowKey)
    {
        var entity = new TableEntity(partitionKey, rowKey);
        foreach (var (name, value) in _properties)
        {
            entity[name] = value;
        }
        return entity;
    }

    /// <summary>
    /// The payload's properties as the SDK serializes a TableEntity after its keys: each binary property as
    /// base64 followed by its "@odata.type":"Edm.Binary" annotation. Built once; the lean driver copies it.
    /// </summary>
    internal string JsonProperties() =>
        string.Concat(_properties.Select(p => $",\"{p.Name}\":\"{Convert.ToBase64String(p.Value)}\",\"{p.Name}@odata.type\":\"Edm.Binary\""));

    /// <summary>
    /// Random, so compression anywhere on the path cannot flatter the numbers; and shared: one array per size for the
    /// whole process, read-only to every slice that sends that many bytes (8 slices of 256 MiB blocks hold one block, not
    /// 8), let go when the last slice using it ends. Callers never write into it.
    /// </summary>
    /// <summary>MD5 of a whole blob as uploaded: each block is the start of the shared buffer.</summary>
    public static string ContentMd5(byte[] block, long blobSizeBytes, int blockSizeBytes)
    {
        using var md5 = IncrementalHash.CreateHash(HashAlgorithmName.MD5);
        for (long offset = 0; offset < blobSizeBytes; offset += blockSizeBytes)
        {
            md5.AppendData(block, 0, (int)Math.Min(blockSizeBytes, blobSizeBytes - offset));
        }
        return Convert.ToBase64String(md5.GetHashAndReset());
    }
    internal static byte[] RandomBytes(int size)
    {
        lock (Shared)
        {
            if (Shared.TryGetValue(size, out var held) && held.TryGetTarget(out var bytes))
            {
                return bytes;
            }
            bytes = new byte[size];
            Random.Shared.NextBytes(bytes);
            Shared[size] = new WeakReference<byte[]>(bytes);
            return bytes;
        }
    }

    private static readonly Dictionary<int, WeakReference<byte[]>> Shared = [];
}
