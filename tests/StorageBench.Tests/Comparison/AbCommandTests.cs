using StorageBench.Cli;
using StorageBench.Engine.Comparison;
using StorageBench.Engine.Statistics;

namespace StorageBench.Tests;

/// <summary>`storagebench ab`'s bad input (exit 2 before anything starts) and the machine warnings compare and ab print.</summary>
[Trait("Category", "Unit")]
public class AbCommandTests
{
    private static async Task<(int Exit, string Output, string Errors)> AbAsync(params string[] args)
    {
        var stdout = new StringWriter();
        var stderr = new StringWriter();
        int exit = await CliApp.RunAsync(["ab", .. args], stdout, stderr, default);
        return (exit, stdout.ToString(), stderr.ToString());
    }

    [Theory]
    [InlineData(new[] { "--candidate", "specs/quick.json" }, "error: --baseline: required (a run spec JSON file)")]
    [InlineData(new[] { "--baseline", "specs/quick.json", "--candidate", "specs/quick.json", "--rounds", "3" },
        "error: --rounds: \"3\" must be a whole number from 4 to 50 (fewer than 4 rounds a side cannot give a 95 % interval)")]
    [InlineData(new[] { "--baseline", "specs/quick.json", "--candidate", "specs/quick.json", "--order", "abba" }, "error: --order: \"abba\" must be alternate or random")]
    [InlineData(new[] { "--baseline", "specs/quick.json", "--candidate", "specs/quick.json", "--threshold", "150" }, "error: --threshold: \"150\" must be a percentage from 0 to below 100")]
    [InlineData(new[] { "--baseline", "no-such-spec.json", "--candidate", "specs/quick.json" }, "error: --baseline: \"no-such-spec.json\" cannot be read")]
    public async Task BadInputExitsTwoNamingTheOptionTheValueAndTheRuleBeforeAnythingStarts(string[] args, string message)
    {
        var (exit, output, errors) = await AbAsync(args);
        Assert.Equal(2, exit);
        Assert.StartsWith(message, errors);
        Assert.DoesNotContain("Azurite", output);   // nothing started
    }

    [Fact]
    public void TheMachineWarningFlagsADifferentMachineStateAndNotTheSameOne()
    {
        RunEnvironment Env(double other, double load, string commit = "abc") =>
            new("Azurite", 1, "cli", "m", "r", 2) { OtherProcessesCpuShare = other, LoadAverageStart = load, ToolCommit = commit, EmulatorVersion = "Azurite-Table/3.37.0" };

        Assert.Empty(MachineComparison.Warnings([Env(0.90, 20), Env(0.95, 24)], [Env(0.93, 22), Env(0.97, 25)]));
        var warnings = MachineComparison.Warnings([Env(0.05, 0.8)], [Env(0.60, 4.2, "def")]).ToList();
        Assert.Equal(3, warnings.Count);
        Assert.Contains("other processes used 5% of the machine's CPU during the baseline and 60% during the candidate", warnings[0]);
        Assert.Contains("load average at the start was 0.8 for the baseline and 4.2 for the candidate", warnings[1]);
        Assert.Contains("the tool commit differed: baseline abc; candidate def", warnings[2]);
    }
}
