using System.Text.RegularExpressions;
using StorageBench.Cli;

namespace StorageBench.Tests;

/// <summary>
/// The command line's conventions, in process (no storage): help on stdout with exit 0, a version with the commit,
/// usage errors on stderr that name the token and suggest the close one, exit 2, and every command and option the
/// hand-written parser took still taken.
/// </summary>
[Trait("Category", "Unit")]
public class CommandLineTests
{
    private static async Task<(int Exit, string Stdout, string Stderr)> RunAsync(params string[] args)
    {
        var stdout = new StringWriter();
        var stderr = new StringWriter();
        int exit = await CliApp.RunAsync(args, stdout, stderr, default);
        return (exit, stdout.ToString(), stderr.ToString());
    }

    [Theory]
    [InlineData("--help")]
    [InlineData("-h")]
    [InlineData("help")]
    public async Task TheHelpListsEveryCommandOnStdoutWithExitZero(string help)
    {
        var (exit, stdout, stderr) = await RunAsync(help);

        Assert.Equal(0, exit);
        Assert.Equal("", stderr);
        Assert.Contains("--version", stdout);
        foreach (string command in new[] { "run", "runs", "serve", "cleanup", "query <NAME>", "compare <BASELINE> <CANDIDATE>" })
        {
            Assert.Matches(new Regex($@"^\s+{Regex.Escape(command)}\s", RegexOptions.Multiline), stdout);
        }
    }

    [Theory]
    [InlineData("run", new[] { "--spec <FILE>", "--out <DIR>", "--connection-string <CS>", "--prices <FILE>", "-v, --verbose", "-q, --quiet", "--json" })]
    [InlineData("runs", new[] { "--connection-string <CS>", "--scenario <S>", "--since <DATE>", "--until <DATE>", "--where <Column>=Number>", "--max <N>" })]
    [InlineData("serve", new[] { "--port <N>", "--connection-string <CS>", "--prices <FILE>" })]
    [InlineData("cleanup", new[] { "--older-than <AGE>", "--dry-run", "--connection-string <CS>" })]
    [InlineData("query", new[] { "<NAME>", "--results <DIR>" })]
    [InlineData("compare", new[] { "<BASELINE>", "<CANDIDATE>", "--connection-string <CS>", "--fail-if-slower <PERCENT>", "--out <FILE.md>" })]
    [InlineData("ab", new[] { "--baseline <SPEC>", "--candidate <SPEC>", "--rounds <N>", "--order <alternate|random>", "--threshold <PERCENT>", "--prices <FILE>" })]
    [InlineData("plan", new[] { "--target <RATE>", "--unit <entities/s|MB/s>", "--from <RUN>", "--instance-memory-mb <512|2048|4096>", "--targets <FILE>" })]
    public async Task EachCommandsHelpShowsItsOptionsOnStdout(string command, string[] options)
    {
        foreach (var args in new[] { new[] { command, "--help" }, [command, "-h"], ["help", command] })
        {
            var (exit, stdout, stderr) = await RunAsync(args);

            Assert.Equal(0, exit);
            Assert.Equal("", stderr);
            Assert.Contains($"storagebench {command}", stdout.Replace("testhost", "storagebench", StringComparison.Ordinal));
            Assert.All(options, o => Assert.Contains(o, stdout));
        }
    }

    [Fact]
    public async Task TheVersionNamesTheCommitItWasBuiltFrom()
    {
        var (exit, stdout, stderr) = await RunAsync("--version");

        Assert.Equal(0, exit);
        Assert.Equal("", stderr);
        Assert.Matches(@"\Astoragebench \d+\.\d+\.\d+ \(commit [0-9a-f]{12}\)\r?\n\z", stdout);
    }

    [Theory]
    [InlineData(new[] { "run", "--spce", "x" }, "error: unknown option '--spce' for 'storagebench run'; did you mean --spec?")]
    [InlineData(new[] { "run", "--spec-file", "x.json" }, "error: unknown option '--spec-file' for 'storagebench run'; did you mean --spec?")]
    [InlineData(new[] { "cleanup", "--dryrun" }, "error: unknown option '--dryrun' for 'storagebench cleanup'; did you mean --dry-run?")]
    [InlineData(new[] { "compare", "a", "b", "--fail-if-slowr", "10" }, "error: unknown option '--fail-if-slowr' for 'storagebench compare'; did you mean --fail-if-slower?")]
    [InlineData(new[] { "ab", "--baseline", "a.json", "--candidate", "b.json", "--rouns", "5" }, "error: unknown option '--rouns' for 'storagebench ab'; did you mean --rounds?")]
    [InlineData(new[] { "plan", "--target", "5", "--unti", "MB/s" }, "error: unknown option '--unti' for 'storagebench plan'; did you mean --unit?")]
    [InlineData(new[] { "rnu" }, "error: unknown command or argument 'rnu' for 'storagebench'; did you mean run?")]
    [InlineData(new[] { "run", "--frobnicate" }, "error: unknown option '--frobnicate' for 'storagebench run'\n")]
    [InlineData(new[] { "runs", "AccountName=a;AccountKey=c2VjcmV0" }, "error: unknown command or argument 'AccountName=a;AccountKey=***' for 'storagebench runs'\n")]
    public async Task AnUnknownTokenIsNamedWithTheClosestOptionOnStderrAndExitTwo(string[] args, string message)
    {
        var (exit, stdout, stderr) = await RunAsync(args);

        Assert.Equal(2, exit);
        Assert.Equal("", stdout);
        Assert.StartsWith(message, stderr.ReplaceLineEndings("\n"));
        string path = args[0] == "rnu" ? "storagebench" : $"storagebench {args[0]}";
        Assert.EndsWith($"Run '{path} --help' for usage.\n", stderr.ReplaceLineEndings("\n"));
        Assert.Equal(2, stderr.ReplaceLineEndings("\n").TrimEnd('\n').Split('\n').Length);
    }

    [Theory]
    [InlineData(new[] { "compare", "a" }, "error: compare: CANDIDATE is missing (compare BASELINE CANDIDATE)")]
    [InlineData(new[] { "compare" }, "error: compare: BASELINE and CANDIDATE are missing (compare BASELINE CANDIDATE)")]
    [InlineData(new[] { "query" }, "error: query: NAME is missing (query NAME)")]
    [InlineData(new[] { "run", "--spec" }, "error: --spec: a value is required (--spec <FILE>)")]
    [InlineData(new[] { "run", "--quiet", "--json" }, "--quiet and --json: choose one output")]
    [InlineData(new[] { "compare", "a", "b", "--fail-if-slower", "150" }, "--fail-if-slower: \"150\" must be a percentage above 0 and below 100, e.g. 10")]
    [InlineData(new[] { "runs", "--since", "yesterday" }, "--since: \"yesterday\" is not a date (use 2026-11-22 or 2026-11-22T02:00:00Z)")]
    [InlineData(new[] { "runs", "--where", "Bogus>1" }, "--where: \"Bogus\" is not a numeric results column")]
    [InlineData(new string[0], "error: no command given; run 'storagebench --help' for the commands")]
    public async Task AMissingOrBadValueIsAUsageErrorNamingWhatIsWrong(string[] args, string message)
    {
        var (exit, stdout, stderr) = await RunAsync(args);

        Assert.Equal(2, exit);
        Assert.Equal("", stdout);
        Assert.Contains(message, stderr);
    }

    /// <summary>System.CommandLine shows an option's default as [default: X]; a description that says it too would show it twice.</summary>
    [Fact]
    public async Task NoCommandsHelpStatesAnOptionsDefaultTwice()
    {
        var root = CliApp.Root(new CliContext(TextWriter.Null, TextWriter.Null, false));
        Assert.NotEmpty(root.Subcommands);
        foreach (var command in root.Subcommands)
        {
            var (exit, stdout, _) = await RunAsync(command.Name, "--help");
            Assert.Equal(0, exit);
            // One entry per option: its first line, and the lines that continue it (indented deeper).
            foreach (string entry in Regex.Split(stdout, @"\r?\n(?=  \S)"))
            {
                Assert.True(Regex.Count(entry, @"\(default\b|\[default:") <= 1, $"storagebench {command.Name} --help states a default twice:\n{entry}");
            }
        }
    }

    /// <summary>Every line the old usage text showed (and its exit codes' commands) still parses, to the same values.</summary>
    [Fact]
    public void EveryCommandAndOptionTheHandParserTookIsStillTaken()
    {
        var root = CliApp.Root(new CliContext(TextWriter.Null, TextWriter.Null, false));
        string[][] lines =
        [
            ["run", "--spec", "s.json", "--out", "o", "--connection-string", "UseDevelopmentStorage=true", "--prices", "p.json"],
            ["runs", "--connection-string", "cs", "--scenario", "quick", "--since", "2026-11-22", "--until", "2026-11-23T02:00:00Z",
                "--where", "TableEntities>=5000000000", "--where", "TableLatencyP99Ms<200", "--max", "5"],
            ["serve", "--port", "0", "--connection-string", "cs", "--prices", "p.json"],
            ["cleanup", "--older-than", "30m", "--dry-run", "--connection-string", "cs"],
            ["query", "runs", "--results", "out"],
            ["compare", "a", "b", "--connection-string", "cs", "--fail-if-slower", "10", "--out", "c.md"],
        ];
        foreach (var line in lines)
        {
            var result = root.Parse(line);
            Assert.True(result.Errors.Count == 0, string.Join(' ', line) + ": " + string.Join("; ", result.Errors.Select(e => e.Message)));
            Assert.Equal(line[0], result.CommandResult.Command.Name);
        }
        var runs = root.Parse(lines[1]);
        Assert.Equal(2, runs.GetValue<Engine.ResultsStore.Threshold[]>("--where")!.Length);
        Assert.Equal(5, runs.GetValue<int>("--max"));
        Assert.Equal(10, root.Parse(lines[5]).GetValue<double?>("--fail-if-slower"));
        Assert.Equal(7071, root.Parse(["serve"]).GetValue<int>("--port"));
        Assert.Equal("25h", root.Parse(["cleanup"]).GetValue<string>("--older-than"));
    }
}
