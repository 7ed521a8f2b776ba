using StorageBench.Engine.Measurement;

namespace StorageBench.Tests;

/// <summary>The driver's glibc calls bind where glibc is (Linux): a missing entry point would leave a long run's native heap growing unnoticed.</summary>
[Trait("Category", "Unit")]
public class NativeHeapTests
{
    [Fact]
    public void TheMmapThresholdIsFixedAndFreePagesAreGivenBackOnLinuxOnly()
    {
        Assert.Equal(OperatingSystem.IsLinux(), NativeHeap.Configure());
        Assert.Equal(OperatingSystem.IsLinux(), NativeHeap.Trim());
    }
}
