using System.Runtime.InteropServices;

namespace StorageBench.Engine.Measurement;

/// <summary>
/// glibc malloc's one setting for a process that drives slices for hours. Every histogram encoded (each running slice's
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

    /// <summary>M_MMAP_THRESHOLD in glibc's malloc.h; setting it also turns the dynamic threshold off.</summary>
    private const int MmapThresholdOption = -3;

    [DllImport("libc", EntryPoint = "mallopt")]
    private static extern int MallOpt(int option, int value);
}
