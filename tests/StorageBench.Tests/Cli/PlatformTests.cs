using CsCheck;
using StorageBench.Cli;

namespace StorageBench.Tests;

/// <summary>The CLI runs on Linux only, and says so in one line anywhere else, naming the system and what it needs.</summary>
[Trait("Category", "Unit")]
public class PlatformTests
{
    [Fact]
    public void AnotherSystemIsRefusedInOneLineNamingItAndWhatTheCliNeeds() =>
        Gen.String.Sample(system =>
        {
            string line = Platform.Refusal(linux: false, system)!;
            Assert.DoesNotContain('\n', line);
            Assert.DoesNotContain('\r', line);
            Assert.StartsWith("error: storagebench needs Linux, with setsid, sh, util-linux flock and libc's flock(2); this system is ", line);
            string named = string.Join(' ', system.Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries));
            Assert.Contains($"this system is {(named.Length > 0 ? named : "unnamed")} (on Windows", line);
        });

    [Fact]
    public void WindowsIsNamedAsItsRuntimeDescribesIt() =>
        Assert.Equal("error: storagebench needs Linux, with setsid, sh, util-linux flock and libc's flock(2); this system is Microsoft Windows 10.0.22631 (on Windows, run it inside WSL 2)",
            Platform.Refusal(linux: false, "Microsoft Windows 10.0.22631"));

    [Fact]
    public void LinuxIsNotRefused()
    {
        Assert.Null(Platform.Refusal(linux: true, "Linux 6.8.0"));
        // The tests run where the CLI runs.
        Assert.Null(Platform.Refusal());
    }

    [Fact]
    public void TheReadmeStatesWhatTheCliNeeds()
    {
        string readme = File.ReadAllText(Path.Combine(Repo.Root(), "README.md"));
        foreach (string need in new[] { "Linux", "`setsid`", "`sh`", "util-linux `flock`", "libc's `flock(2)`" })
        {
            Assert.Contains(need, readme);
        }
    }
}
