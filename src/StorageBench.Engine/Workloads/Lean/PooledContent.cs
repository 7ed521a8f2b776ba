using System.Buffers;
using System.Net;

namespace StorageBench.Engine.Workloads.Lean;

/// <summary>
/// A request body written into one reusable buffer; sent as it is, with its length set per request. The buffer is rented
/// from <see cref="Bodies"/> and given back by <see cref="Release"/> (its request's Dispose): a slice run as segments makes
/// its workers' requests again each segment, and an EGT's body (~200 KB) allocated anew each time was large-object-heap
/// garbage beside the last segment's, which the heap kept for the rest of the run (BENCHMARKS.md section 11).
/// </summary>
public sealed class PooledContent : HttpContent
{
    /// <summary>Bodies larger than this (no storage request body is: an EGT's is at most 4 MiB) are made and dropped, not pooled.</summary>
    public const int LargestPooledBytes = 2 * ServiceLimits.MaxTransactionPayloadBytes;

    /// <summary>A cap above any process's requests in flight at once (slices × concurrency): the pool holds fewer than that.</summary>
    public const int MostBodiesOfOneSize = 1024;

    /// <summary>
    /// The process's request bodies: a pool without per-thread caches, so it makes an array only when every one of that size
    /// is out, and holds at most as many bodies as were ever in flight at once (slots × body size). The shared pool keeps one
    /// array per size in each thread that returned one: a body released on one pool thread was found by no renter on another,
    /// so each segment's workers made new bodies while the last ones sat in threads' caches, up to threads × 256 KB.
    /// </summary>
    internal static readonly ArrayPool<byte> Bodies = NewBodyPool();

    private readonly ArrayPool<byte> _pool;
    private byte[]? _rented;

    public PooledContent(int capacity)
        : this(capacity, Bodies)
    {
    }

    internal PooledContent(int capacity, ArrayPool<byte> pool)
    {
        _pool = pool;
        Buffer = _rented = pool.Rent(capacity);
    }

    internal static ArrayPool<byte> NewBodyPool() => ArrayPool<byte>.Create(LargestPooledBytes, MostBodiesOfOneSize);

    public byte[] Buffer { get; private set; }

    public int Length { get; private set; }

    /// <summary>Buffer with room for at least <paramref name="size"/> bytes (grown once, when a shape needs more).</summary>
    public byte[] Reserve(int size)
    {
        if (Buffer.Length < size)
        {
            if (_rented is { } smaller)
            {
                _pool.Return(smaller);
            }
            Buffer = _rented = _pool.Rent(size);
        }
        return Buffer;
    }

    /// <summary>Gives the rented buffer back to the pool, once; the content sends nothing after.</summary>
    public void Release()
    {
        if (Interlocked.Exchange(ref _rented, null) is { } rented)
        {
            _pool.Return(rented);
        }
        Buffer = [];
        SetLength(0);
    }

    public void SetLength(int length)
    {
        Length = length;
        Headers.ContentLength = length;
    }

    /// <summary>Sends an outside array (a blob block shared by all workers) instead of the own buffer.</summary>
    public void Use(byte[] shared, int length)
    {
        Buffer = shared;
        SetLength(length);
    }

    protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) => stream.WriteAsync(Buffer, 0, Length);

    protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken) =>
        stream.WriteAsync(Buffer.AsMemory(0, Length), cancellationToken).AsTask();

    protected override void SerializeToStream(Stream stream, TransportContext? context, CancellationToken cancellationToken) => stream.Write(Buffer, 0, Length);

    protected override bool TryComputeLength(out long length)
    {
        length = Length;
        return true;
    }

    /// <summary>Not disposed with a response or a send: the worker reuses it.</summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Usage", "CA2215", Justification = "HttpContent's Dispose would end the reused buffer's life after every send.")]
    protected override void Dispose(bool disposing)
    {
    }
}
