using CsCheck;
using StorageBench.Engine.Reports;
using StorageBench.Engine.Workloads;

namespace StorageBench.Tests;

/// <summary>
/// A read's planned work is reads, not writes: the report heads the column of what the planned work came to with each
/// kind's own word ("downloaded", "read"), and a run of writes alone keeps "stored / planned".
/// </summary>
[Trait("Category", "Unit")]
public class KindWordsTests
{
    private static readonly DateTime Start = new(2026, 11, 28, 12, 0, 0, DateTimeKind.Utc);

    [Fact]
    public void AWorkloadThatSeedsWhatItReadsNamesItsStoredFigureAsARead()
    {
        foreach (var room in WorkloadList.All)
        {
            Assert.True(room.Seeds == (room.Kind.StoredWord != "stored"), $"{room.Name}: seeds {room.Seeds}, stored word \"{room.Kind.StoredWord}\"");
        }
    }

    [Fact]
    public void TheStoredColumnIsHeadedByTheWordsOfTheKindsInTheRun() =>
        Gen.Int[0, WorkloadList.All.Count - 1].Array[1, 6].Sample(picks =>
        {
            var rooms = picks.Select(i => WorkloadList.All[i]).ToList();
            var run = TestData.Run("words", Start, [.. rooms.Select(r => TestData.TableWorkload() with { Workload = r.Name })]);

            string header = ReportWriter.Markdown(run).Split('\n').First(l => l.StartsWith("| workload | slices |", StringComparison.Ordinal));

            string words = string.Join(" or ", rooms.Select(r => r.Kind.StoredWord).Distinct());
            Assert.Contains($"| timed out | {words} / planned (warm-up included) |", header);
            Assert.Equal(rooms.All(r => !r.Seeds), header.Contains("| stored / planned", StringComparison.Ordinal));
        });

    [Fact]
    public void ADownloadsColumnSaysDownloaded()
    {
        var run = TestData.Run("download", Start, TestData.TableWorkload() with { Workload = "blobDownload" });
        Assert.Contains("| downloaded / planned (warm-up included) |", ReportWriter.Markdown(run));
    }
}
