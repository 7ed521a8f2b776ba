using System.Globalization;
using System.Text.Json;

namespace StorageBench.Tests;

/// <summary>
/// The driver's memory does not grow with slices × block size (issue 43): 8 slices each uploading one 256 MiB block, through
/// the CLI to the Azurite it starts (a process of its own: what it keeps is not the driver's), peak working set under
/// 1.2 GB. Each slice once allocated its own block (2.2 GB); the bytes are the same, so one read-only buffer serves them all.
/// </summary>
[Trait("Category", "EndToEnd")]
public class DriverMemoryTests(Xunit.Abstractions.ITestOutputHelper output)
{
    [Fact]
    public async Task EightSlicesOf256MiBBlocksRunWithThePeakWorkingSetUnder1Point2GB()
    {
        string dir = Directory.CreateTempSubdirectory("sb-memory-").FullName;
        string spec = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(spec, """
            { "scenario": "memory", "startDelaySeconds": 0,
              "blobUpload": { "blobCount": 8, "blobSizeBytes": 268435456, "blockSizeBytes": 268435456, "parallelBlocks": 1, "slices": 8, "blockRetries": 0 } }
            """);

        var (exit, said) = await CliProcess.RunAsync(null, "run", "--spec", spec, "--out", Path.Combine(dir, "out"));

        string peakLine = said.Split('\n').SingleOrDefault(l => l.StartsWith("Driver peak working set:", StringComparison.Ordinal))
            ?? throw new Xunit.Sdk.XunitException($"no peak line (exit {exit}): {said}");
        double peakMiB = double.Parse(peakLine.Split(':')[1].Trim().Split(' ')[0], CultureInfo.InvariantCulture);
        output.WriteLine(peakLine);
        // Every slice sent its block (a loaded in-memory Azurite may fail some of them: the run then exits 1, which is not what is measured here).
        Assert.True(exit is 0 or 1, said);
        using var summary = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(dir, "out", "summary.json")));
        Assert.True(summary.RootElement.GetProperty("workloads")[0].GetProperty("operations").GetInt64() >= 8, said);
        Assert.True(peakMiB * 1_048_576 < 1.2e9, $"{peakLine}\n{said}");
    }
}
