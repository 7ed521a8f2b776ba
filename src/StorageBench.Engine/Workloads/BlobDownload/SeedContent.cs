using System.Security.Cryptography;

namespace StorageBench.Engine.Workloads.BlobDownload;

/// <summary>
/// What every seeded blob holds: one pseudo-random pattern (fixed seed, at most 1 MiB) repeated to the blob's size. The seeder
/// writes it and the downloads are checked against it, in separate processes: it is a function of the size alone. Random, so
/// compression on the path cannot flatter the figures.
/// </summary>
internal sealed class SeedContent
{
    public const int MaxPatternBytes = 1 << 20;
    private const int Seed = 20_261_126;
    private readonly byte[] _pattern;

    public SeedContent(long blobSizeBytes)
    {
        BlobSizeBytes = blobSizeBytes;
        _pattern = new byte[(int)Math.Min(blobSizeBytes, MaxPatternBytes)];
        new Random(Seed).NextBytes(_pattern);
    }

    public long BlobSizeBytes { get; }

    /// <summary>The seed's bytes from <paramref name="offset"/> into <paramref name="destination"/>.</summary>
    public void CopyTo(long offset, Span<byte> destination)
    {
        while (destination.Length > 0)
        {
            int at = (int)(offset % _pattern.Length);
            int n = Math.Min(destination.Length, _pattern.Length - at);
            _pattern.AsSpan(at, n).CopyTo(destination);
            destination = destination[n..];
            offset += n;
        }
    }

    /// <summary>MD5 of the seed's bytes [offset, offset + length).</summary>
    public byte[] Md5(long offset, long length)
    {
        using var md5 = IncrementalHash.CreateHash(HashAlgorithmName.MD5);
        for (long end = offset + length; offset < end;)
        {
            int at = (int)(offset % _pattern.Length);
            int n = (int)Math.Min(end - offset, _pattern.Length - at);
            md5.AppendData(_pattern, at, n);
            offset += n;
        }
        return md5.GetHashAndReset();
    }

    /// <summary>Where a range starts within the pattern: ranges of the same phase and length hold the same bytes.</summary>
    public int PhaseOf(long offset) => (int)(offset % _pattern.Length);

    /// <summary>The whole blob as a stream, for the seeding Put Blob.</summary>
    public Stream Open() => new SeedStream(this);

    private sealed class SeedStream(SeedContent content) : Stream
    {
        public override bool CanRead => true;
        public override bool CanSeek => true;
        public override bool CanWrite => false;
        public override long Length => content.BlobSizeBytes;
        public override long Position { get; set; }

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override int Read(Span<byte> buffer)
        {
            int n = (int)Math.Min(buffer.Length, Length - Position);
            if (n <= 0)
            {
                return 0;
            }
            content.CopyTo(Position, buffer[..n]);
            Position += n;
            return n;
        }

        public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) => new(Read(buffer.Span));

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) => Task.FromResult(Read(buffer.AsSpan(offset, count)));

        public override long Seek(long offset, SeekOrigin origin) => Position = origin switch
        {
            SeekOrigin.Begin => offset,
            SeekOrigin.Current => Position + offset,
            _ => Length + offset,
        };

        public override void Flush()
        {
        }

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
