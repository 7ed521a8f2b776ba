using System.Globalization;

namespace StorageBench.Engine.Comparison;

/// <summary>
/// Whether two sets of runs saw the same machine: how much CPU other processes took, the load, the
/// tool's build and the emulator. compare and ab print these side by side and warn when they differ,
/// because then the machine, not only the spec, may explain a difference.
/// </summary>
public static class MachineComparison
{
    /// <summary>Why the two sides' machines were not alike: other processes' CPU or load apart, or a different build or emulator.</summary>
    public static IEnumerable<string> Warnings(IReadOnlyList<RunEnvironment?> baseline, IReadOnlyList<RunEnvironment?> candidate)
    {
        static double? Med(IEnumerable<double?> v) => v.OfType<double>().ToArray() is { Length: > 0 } a ? Robust.Median(a) : null;
        if (Med(baseline.Select(e => e?.OtherProcessesCpuShare)) is { } cb && Med(candidate.Select(e => e?.OtherProcessesCpuShare)) is { } cc && Math.Abs(cb - cc) > MachineCpuShareApart)
        {
            yield return string.Create(CultureInfo.InvariantCulture,
                $"other processes used {cb:0%} of the machine's CPU during the baseline and {cc:0%} during the candidate (more than {MachineCpuShareApart:0%} apart): the machine, not only the spec, differed");
        }
        if (Med(baseline.Select(e => e?.LoadAverageStart)) is { } lb && Med(candidate.Select(e => e?.LoadAverageStart)) is { } lc && Math.Max(lb, lc) > 1 && Math.Max(lb, lc) > 2 * Math.Min(lb, lc))
        {
            yield return string.Create(CultureInfo.InvariantCulture, $"the load average at the start was {lb:0.0} for the baseline and {lc:0.0} for the candidate (more than twice apart)");
        }
        foreach (var (what, f) in new (string, Func<RunEnvironment, string?>)[] { ("tool commit", e => e.ToolCommit), ("emulator", e => e.EmulatorVersion) })
        {
            var a = baseline.OfType<RunEnvironment>().Select(f).Distinct().ToList();
            var c = candidate.OfType<RunEnvironment>().Select(f).Distinct().ToList();
            if (!a.SequenceEqual(c))
            {
                yield return $"the {what} differed: baseline {string.Join(", ", a.Select(v => v ?? "n/a"))}; candidate {string.Join(", ", c.Select(v => v ?? "n/a"))}";
            }
        }
    }

    /// <summary>Other processes' CPU shares further apart than this (20 percentage points) mean the machine was not in one state.</summary>
    public const double MachineCpuShareApart = 0.20;

}
