using System.Net;

namespace StorageBench.Engine.Workloads.Lean;

/// <summary>A request body written into one reusable buffer; sent as it is, with its length set per request.</summary>
public sealed class PooledContent(int capacity) : HttpContent
{
    public byte[] Buffer { get; private set; } = new byte[capacity];

    public int Length { get; private set; }

    /// <summary>Buffer with room for at least <paramref name="size"/> bytes (grown once, when a shape needs more).</summary>
    public byte[] Reserve(int size)
    {
        if (Buffer.Length < size)
        {
            Buffer = new byte[size];
        }
        return Buffer;
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
