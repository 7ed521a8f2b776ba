using System.Runtime.InteropServices;

namespace StorageBench.Engine.Measurement;

/// <summary>
/// glibc malloc for a process that drives slices for hours: one setting, and freed pages given back. Every histogram encoded (each running slice's
/// progress once a second, each result) opens a zlib deflater whose state is one ~350 KB block. glibc serves the first
/// such blocks with mmap and, as each is freed, raises its mmap threshold past them (its dynamic threshold), so from then
/// on they come from the heap arena of whichever pool thread encodes; their freed space there is never given back. A
/// 30-min soak grew 183 → 388 MiB that way with 7 MB of malloc in use (BENCHMARKS.md section 11). A fixed threshold
/// keeps them in mmap, returned to the system when freed.
/// </summary>
public static class NativeHeap
{
    /// <summary>glibc's own starting threshold, held fixed: blocks this large or larger are mapped and unmapped on their own.</summary>
    public const int MmapThresholdBytes = 128 * 1024;

    /// <summary>Fixes the threshold; false where malloc is not glibc's (another libc ignores or lacks mallopt).</summary>
    public static bool Configure()
    {
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }
        try
        {
            return MallOpt(MmapThresholdOption, MmapThresholdBytes) == 1;
        }
        catch (Exception ex) when (ex is EntryPointNotFoundException or DllNotFoundException)
        {
            return false;
        }
    }

    /// <summary>
    /// Gives back to the system the pages malloc holds free (malloc_trim): freed blocks stay in the arena of the thread
    /// that freed them, and a 30-min soak's malloc held 12.9 → 20.2 MiB in its first 13 minutes while 6.4-7.4 MiB were in
    /// use. Called when a slice execution ends, so a long run's segments each hand it back; false where malloc is not glibc's.
    /// </summary>
    public static bool Trim()
    {
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }
        try
        {
            // 1 when it gave pages back, 0 when there were none to give: neither is an error.
            _ = MallocTrim(0);
            return true;
        }
        catch (Exception ex) when (ex is EntryPointNotFoundException or DllNotFoundException)
        {
            return false;
        }
    }

    [DllImport("libc", EntryPoint = "malloc_trim")]
    private static extern int MallocTrim(nuint pad);

    /// <summary>M_MMAP_THRESHOLD in glibc's malloc.h; setting it also turns the dynamic threshold off.</summary>
    private const int MmapThresholdOption = -3;

    [DllImport("libc", EntryPoint = "mallopt")]
    private static extern int MallOpt(int option, int value);
}
