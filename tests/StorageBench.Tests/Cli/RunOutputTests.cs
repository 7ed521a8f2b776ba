using StorageBench.Cli;

namespace StorageBench.Tests;

/// <summary>run --out: an earlier run's reports are never replaced by accident, and a folder that cannot be written never loses the summary.</summary>
[Trait("Category", "EndToEnd")]
[Collection(ResultsAzuriteCollection.Name)]
public class RunOutputTests(AzuriteFixture azurite)
{
    private const string Spec = """{ "scenario": "out-dir", "startDelaySeconds": 0, "client": { "primeRounds": 0 }, "tableInsert": { "entityCount": 100, "batchSize": 50 } }""";

    [Fact]
    public async Task AFolderThatHoldsASummaryIsRefusedWithExitTwoUnlessForce()
    {
        string dir = Directory.CreateTempSubdirectory("sb-out").FullName;
        string spec = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(spec, Spec);
        string[] run = ["run", "--spec", spec, "--connection-string", azurite.ConnectionString, "--out", dir];
        Assert.Equal(0, await CliApp.RunAsync(run, new StringWriter(), new StringWriter(), default));
        string first = await File.ReadAllTextAsync(Path.Combine(dir, "summary.json"));

        var stderr = new StringWriter();
        var stdout = new StringWriter();
        Assert.Equal(2, await CliApp.RunAsync(run, stdout, stderr, default));
        Assert.Equal($"error: --out: \"{dir}\" already holds the reports of an earlier run ({Path.Combine(dir, "summary.json")}); give another folder, or --force to replace them; nothing was started",
            stderr.ToString().Trim());
        Assert.Equal("", stdout.ToString());
        Assert.Equal(first, await File.ReadAllTextAsync(Path.Combine(dir, "summary.json")));

        Assert.Equal(0, await CliApp.RunAsync([.. run, "--force"], new StringWriter(), new StringWriter(), default));
        Assert.NotEqual(first, await File.ReadAllTextAsync(Path.Combine(dir, "summary.json")));
    }

    [Fact]
    public async Task AnUnwritableOutIsRefusedBeforeAnythingStartsWithExitTwo()
    {
        string dir = Directory.CreateTempSubdirectory("sb-out").FullName;
        string spec = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(spec, Spec);
        // A folder under a regular file can never be created (whoever runs the tests, root included).
        string blocked = Path.Combine(spec, "reports");
        var (stdout, stderr) = (new StringWriter(), new StringWriter());

        int exit = await CliApp.RunAsync(["run", "--spec", spec, "--connection-string", azurite.ConnectionString, "--out", blocked], stdout, stderr, default);

        Assert.Equal(2, exit);
        Assert.Equal("", stdout.ToString());   // no "Run … started": nothing was
        Assert.Matches($@"^error: --out: ""{System.Text.RegularExpressions.Regex.Escape(blocked)}"" cannot be written \(.+\); give a folder you can write to; nothing was started$",
            stderr.ToString().Trim());
    }

    [Fact]
    public async Task WhenOutFailsLateTheReportsAreWrittenToAFallbackFolderAndTheErrorSaysWhere()
    {
        // The folder passed the check, then became unwritable during the run (here: never was, to call the writer directly).
        string file = Path.Combine(Directory.CreateTempSubdirectory("sb-out").FullName, "a-file");
        await File.WriteAllTextAsync(file, "");
        var summary = TestData.Run("out-late", DateTime.UtcNow, TestData.TableWorkload());
        var (stdout, stderr) = (new StringWriter(), new StringWriter());

        int exit = await ReportOutput.ReportAsync(summary, Path.Combine(file, "reports"), RunOutput.Default, stdout, stderr);

        Assert.Equal(1, exit);
        string fallback = ReportOutput.FallbackDirectory(summary.RunId);
        Assert.True(File.Exists(Path.Combine(fallback, "summary.json")));
        Assert.EndsWith($"(they were written to {fallback} instead)", stderr.ToString().Trim());
        Assert.Single(stderr.ToString().Trim().Split('\n'));
    }

    /// <summary>--verbose shows the log on stderr (event id, category, message); without it the same run prints no log.</summary>
    [Fact]
    public async Task VerboseShowsTheLogOnStderrAndTheDefaultShowsNone()
    {
        string dir = Directory.CreateTempSubdirectory("sb-out").FullName;
        string spec = Path.Combine(dir, "spec.json");
        await File.WriteAllTextAsync(spec, Spec);
        var (quiet, verbose) = (new StringWriter(), new StringWriter());

        Assert.Equal(0, await CliApp.RunAsync(["run", "--spec", spec, "--connection-string", azurite.ConnectionString, "--out", Path.Combine(dir, "a")], new StringWriter(), quiet, default));
        Assert.Equal(0, await CliApp.RunAsync(["run", "--spec", spec, "--connection-string", azurite.ConnectionString, "--out", Path.Combine(dir, "b"), "--verbose"], new StringWriter(), verbose, default));

        Assert.Equal("", quiet.ToString());
        Assert.Matches(@"(?m)^info: 3001 StorageBench\.Cli\.RunCommand: Run [a-z0-9-]+ started: scenario out-dir, target Azurite, 1 account\(s\)$", verbose.ToString());
        Assert.Matches(@"(?m)^info: 3002 StorageBench\.Cli\.RunCommand: Run [a-z0-9-]+ ended Completed with 0 error\(s\)$", verbose.ToString());
    }
}
