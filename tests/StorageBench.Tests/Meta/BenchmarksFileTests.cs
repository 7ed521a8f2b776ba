using CsCheck;
using StorageBench.Benchmarks;

namespace StorageBench.Tests;

/// <summary>
/// scripts/benchmark.sh rewrites BENCHMARKS.md: the sections a run measured are replaced, and every other section (one
/// measured by hand, or by another of the script's modes) stays, word for word and in its place.
/// </summary>
[Trait("Category", "Unit")]
public class BenchmarksFileTests
{
    private static string Section(int number, string body) => $"## {number}. Title {number}\n\n{body}\n\n### {number}a. Sub\n\n{body} sub\n";

    [Fact]
    public void ARewriteReplacesTheMeasuredSectionsAndKeepsEveryOtherInItsPlace() =>
        Gen.Select(Gen.Int[1, 12].HashSet[1, 12], Gen.Bool.Array[12], Gen.String[Gen.Char['a', 'z'], 1, 20]).Sample((numbers, measured, word) =>
        {
            var ordered = numbers.Order().ToList();
            string existing = "# Benchmarks\n\nold header\n\n" + string.Concat(ordered.Select(n => Section(n, $"old {n} {word}") + "\n"));
            var rewritten = ordered.Where(n => measured[n - 1]).ToList();
            string sections = "\n" + string.Concat(rewritten.Select(n => Section(n, $"new {n}") + "\n"));
            string result = BenchmarksFile.Rewrite(existing, "# Benchmarks\n\nnew header\n", sections);
            Assert.StartsWith("# Benchmarks\n\nnew header\n\n## ", result);
            Assert.DoesNotContain("old header", result);
            foreach (int n in ordered)
            {
                Assert.Contains(measured[n - 1] ? Section(n, $"new {n}") : Section(n, $"old {n} {word}"), result);
                Assert.Equal(measured[n - 1], !result.Contains($"old {n} {word}", StringComparison.Ordinal));
            }
            var order = ordered.Select(n => result.IndexOf($"## {n}. ", StringComparison.Ordinal)).ToList();
            Assert.Equal(order.Order(), order);
        });

    [Fact]
    public void ASectionTheFileLacksGoesAfterTheMeasuredOneBeforeIt()
    {
        string existing = "# B\n\n" + Section(1, "old") + "\n" + Section(9, "hand") + "\n" + Section(11, "soak");
        string result = BenchmarksFile.Rewrite(existing, "# B\n", Section(1, "new") + "\n" + Section(2, "added"));
        Assert.Equal("# B\n\n" + Section(1, "new") + "\n" + Section(2, "added") + "\n" + Section(9, "hand") + "\n" + Section(11, "soak"), result);
    }

    [Fact]
    public void AFreshFileGetsTheHeaderAndTheSectionsInOrder()
    {
        string result = BenchmarksFile.Rewrite("", "# B\n", "\n" + Section(1, "one") + "\n" + Section(2, "two"));
        Assert.Equal("# B\n\n" + Section(1, "one") + "\n" + Section(2, "two"), result);
    }

    [Fact]
    public void ASpliceKeepsTheHeader()
    {
        string existing = "# B\n\nwritten by the full run\n\n" + Section(5, "old") + "\n" + Section(11, "soak");
        Assert.Equal("# B\n\nwritten by the full run\n\n" + Section(5, "old") + "\n" + Section(11, "new soak"),
            BenchmarksFile.Splice(existing, Section(11, "new soak")));
    }
}
