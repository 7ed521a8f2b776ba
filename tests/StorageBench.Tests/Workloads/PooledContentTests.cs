using CsCheck;
using StorageBench.Engine.Workloads.Lean;

namespace StorageBench.Tests;

/// <summary>
/// A request body's buffer comes from the shared pool and goes back to it when its request is disposed, so the next
/// segment's workers reuse the last segment's bodies instead of leaving them in the large object heap.
/// </summary>
[Trait("Category", "Unit")]
public class PooledContentTests
{
    [Fact]
    public void ReserveAlwaysGivesRoomAndSendsOnlyWhatWasWritten()
    {
        Gen.Select(Gen.Int[0, 300_000], Gen.Int[0, 1 << 20].Array[1, 6]).Sample((capacity, sizes) =>
        {
            using var content = new PooledContent(capacity);
            Assert.True(content.Buffer.Length >= capacity);
            foreach (int size in sizes)
            {
                var buffer = content.Reserve(size);
                Assert.Same(content.Buffer, buffer);
                Assert.True(buffer.Length >= size, $"reserved {size} bytes, got {buffer.Length}");
                buffer.AsSpan(0, size).Fill(7);
                content.SetLength(size);
                Assert.Equal(size, content.Headers.ContentLength);
                using var sent = new MemoryStream();
                content.CopyTo(sent, null, default);
                Assert.Equal(size, sent.Length);
            }
            content.Release();
            Assert.Empty(content.Buffer);
            Assert.Equal(0, content.Headers.ContentLength);
        });
    }

    [Fact]
    public void AReleasedBodyIsTheNextRequestsBody()
    {
        // One thread, nothing rented between: the pool hands the returned array to the next renter of its size.
        var first = new PooledContent(200_000);
        var body = first.Buffer;
        first.Release();
        first.Release();
        var next = new PooledContent(200_000);
        Assert.Same(body, next.Buffer);
        next.Release();
    }
}
