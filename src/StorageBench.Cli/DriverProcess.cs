using StorageBench.Engine.Measurement;

namespace StorageBench.Cli;

/// <summary>Process-wide settings for a process that drives benchmark slices (the CLI; the tests use the same).</summary>
public static class DriverProcess
{
    /// <summary>
    /// Slices wait on timers for the synchronized start, then run many async loops. With the default
    /// minimum (one thread per core) their continuations queue behind the thread pool's injection
    /// (about 0.5 s per thread), and slices pass the start hundreds of milliseconds late.
    /// </summary>
    /// <remarks>Also fixes glibc's mmap threshold (<see cref="NativeHeap"/>), so a long run's memory stays flat.</remarks>
    public static void Configure()
    {
        ThreadPool.GetMinThreads(out int workers, out int io);
        ThreadPool.SetMinThreads(Math.Max(workers, 64), io);
        NativeHeap.Configure();
    }
}
