using StorageBench.Cli;

namespace StorageBench.Tests;

/// <summary>
/// `--spec` given something that is not a readable file: one line naming the option, the path and what is wrong, exit 2,
/// nothing started, never an unhandled exception (a directory or "" used to escape as UnauthorizedAccessException /
/// ArgumentException with a stack trace and exit 134).
/// </summary>
[Trait("Category", "Unit")]
public class SpecFileTests
{
    [Theory]
    [InlineData("run")]
    [InlineData("ab")]
    public async Task ADirectoryAnEmptyPathOrAMissingFileIsOneLineNamingTheOptionAndThePath(string command)
    {
        string dir = Directory.CreateTempSubdirectory("sb-specdir-").FullName;
        try
        {
            foreach (var (path, says) in new[]
            {
                (dir, "is a directory"),
                ("", "is not a file name"),
                ("   ", "is not a file name"),
                (Path.Combine(dir, "missing.json"), "cannot be read: there is no such file"),
                ("bad\0name.json", "cannot be read"),
            })
            {
                string option = command == "run" ? "--spec" : "--baseline";
                string[] args = command == "run"
                    ? ["run", "--spec", path, "--connection-string", "UseDevelopmentStorage=true"]
                    : ["ab", "--baseline", path, "--candidate", "specs/quick.json", "--connection-string", "UseDevelopmentStorage=true"];
                var stdout = new StringWriter();
                var stderr = new StringWriter();

                int exit = await CliApp.RunAsync(args, stdout, stderr, default);

                string[] lines = stderr.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
                Assert.True(exit == CliApp.UsageError, $"{path}: exit {exit}: {stderr}");
                Assert.Single(lines);
                Assert.StartsWith($"error: {option}: \"{path}\" {says}", lines[0]);
                Assert.DoesNotContain("   at ", stderr.ToString());
            }
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }
}
