using CsCheck;
using StorageBench.Engine.Workloads.Lean;

namespace StorageBench.Tests;

/// <summary>
/// A request body's buffer comes from the process's body pool and goes back to it when its request is disposed, so the next
/// segment's workers reuse the last segment's bodies, whatever threads they run on, instead of leaving them in the large
/// object heap or in threads' caches.
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
        // Nothing rented between: the pool hands the returned array to the next renter of its size.
        var pool = PooledContent.NewBodyPool();
        var first = new PooledContent(200_000, pool);
        var body = first.Buffer;
        first.Release();
        first.Release();
        var next = new PooledContent(200_000, pool);
        Assert.Same(body, next.Buffer);
        next.Release();
    }

    [Fact]
    public void TheNextSegmentsWorkersOnOtherThreadsReuseTheBodiesTheLastOnesReleasedAndThePoolMakesNoMore()
    {
        Gen.Select(Gen.Int[1, 40], Gen.Int[1_000, 3_000_000]).Sample((workers, capacity) =>
        {
            // A pool of the test's own, so other tests' requests rent nothing from it meanwhile.
            var pool = PooledContent.NewBodyPool();
            var made = new HashSet<byte[]>(ReferenceEqualityComparer.Instance);
            for (int segment = 0; segment < 3; segment++)
            {
                // Each worker's request is made on one thread and disposed on another, as pool threads do.
                var bodies = OnThreads(workers, _ => new PooledContent(capacity, pool));
                foreach (var body in bodies)
                {
                    made.Add(body.Buffer);
                }
                OnThreads(workers, w =>
                {
                    bodies[w].Release();
                    return bodies[w];
                });
            }
            // At most one body per request in flight at once, however many segments and threads.
            Assert.Equal(workers, made.Count);
        }, iter: 20);
    }

    [Fact]
    public void AnEmptyBodyAndOneLargerThanThePoolKeepsAreReleasedWithoutFault()
    {
        var pool = PooledContent.NewBodyPool();
        var empty = new PooledContent(0, pool);
        empty.Release();
        var huge = new PooledContent(PooledContent.LargestPooledBytes + 1, pool);
        var body = huge.Buffer;
        huge.Release();
        var next = new PooledContent(PooledContent.LargestPooledBytes + 1, pool);
        Assert.NotSame(body, next.Buffer);
        next.Release();
    }

    /// <summary>Runs <paramref name="work"/> for each of <paramref name="count"/> workers, each on a thread of its own.</summary>
    private static PooledContent[] OnThreads(int count, Func<int, PooledContent> work)
    {
        var results = new PooledContent[count];
        var threads = Enumerable.Range(0, count).Select(w => new Thread(() => results[w] = work(w))).ToArray();
        foreach (var t in threads)
        {
            t.Start();
        }
        foreach (var t in threads)
        {
            t.Join();
        }
        return results;
    }
}
