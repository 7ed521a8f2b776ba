using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text.RegularExpressions;
using StorageBench.Cli;
using Xunit.Abstractions;

namespace StorageBench.Tests;

/// <summary>
/// Every shell command the docs show is run here as a user would paste it — against an Azurite and a
/// `storagebench serve` this test starts, with ports, ids and placeholders substituted — and its exit
/// status and output shape are checked. `storagebench` is the tool the README's install line packs and
/// installs, run first from a fresh tool directory of this test's own (--tool-path instead of --global, so the
/// machine's global tools are not changed) and put first on PATH for every later command. A command that cannot run on this machine is in
/// <see cref="Rules"/> with the reason; a command no rule covers fails the test, so a new one in the
/// docs is a decision, not an accident. Commands run in lanes (<see cref="Lanes"/>): each lane in the docs' order, the lanes
/// side by side, as independent commands can; what one command needs of another's result stays in one lane.
/// </summary>
[Trait("Category", "EndToEnd")]
[Collection(BuildsCollection.Name)]
public class DocsCommandsTests(ITestOutputHelper output)
{
    /// <summary>What to do with a documented command: run it and check its output, or skip it, saying why.</summary>
    /// <param name="UserOut">The command writes or reads the user's <c>out/</c> by default: it is pointed at this test's own folder
    /// instead (<c>--out</c>, <c>--results</c>), so the tests never leave runs among the user's.</param>
    /// <param name="Once">Run the first time only: the same command later in the docs is checked against that run's output.
    /// For a command that only builds (minutes under load) and whose second run would do the same.</param>
    /// <param name="Lane">Which commands it runs beside: <see cref="Lanes"/>.</param>
    private sealed record Rule(string Pattern, string? Expect = null, string? Skip = null, bool Background = false, int Exit = 0, bool UserOut = false,
        bool Once = false, string Lane = Lanes.Cli)
    {
        public Regex Regex { get; } = new(Pattern);
    }

    /// <summary>
    /// The lanes: <see cref="Builds"/> and the <see cref="Own"/> lanes first, side by side; once the tool is installed the
    /// others, then <see cref="Listings"/> alone. On two busy cores most of a documented run is waiting (on Azurite, a start
    /// instant, a child process), and side by side the test's commands get a larger share of the CPU against the machine's
    /// other work.
    /// </summary>
    private static class Lanes
    {
        /// <summary>Builds the tool every `storagebench` command runs.</summary>
        public const string Builds = "builds";
        /// <summary>Commands of their own: help, version, a run, cleanup.</summary>
        public const string Cli = "cli";
        /// <summary>Each command a lane of its own: bench.sh, which runs the CLI it publishes into .build/cli, not the installed
        /// tool, so these start beside <see cref="Builds"/>. build-cli.sh's lock takes one build at a time: the first compiles
        /// the ReadyToRun images, and the others reuse them.</summary>
        public const string Own = "own";
        /// <summary>The two runs and the compare that reads them.</summary>
        public const string Compare = "compare";
        /// <summary>serve, and the curls to it, which use the run the POST started.</summary>
        public const string Serve = "serve";
        /// <summary>Listings of this test's out/ and of the account: after every run, so none is read half-written.</summary>
        public const string Listings = "listings";
    }

    private const string Azure = "needs an Azure subscription (az login); this machine has no internet";
    private const string ResumeTested = "a run killed mid-run and resumed takes minutes; ResumeAndScaleOutTests kills such a run with SIGKILL and resumes it with these commands";
    private const string ScaleOutTested = "ResumeAndScaleOutTests runs two `storagebench worker` processes and `run --external-workers` as shown";
    private const string CoreTools = "Azure Functions Core Tools cannot be installed here; the same HTTP contract is run below against storagebench serve";

    private static readonly Rule[] Rules =
    [
        new(@"^\./scripts/test\.sh(\s+#.*)?$", Skip: "it is the command that runs this test"),
        new(@"^\./scripts/test\.sh --unit(\s+#.*)?$", Skip: "its dotnet test would rebuild the test assembly this test runs in; every full run runs the same unit tests, and TestCategoryTests checks each test class has its category"),
        new(@"^\./scripts/bench\.sh\s+--spec (?!specs/)(?![^#]*--prices)", Expect: @"# StorageBench run \S+ — Completed[\s\S]*Wrote summary\.json, summary\.md, summary\.html to \S+/", Lane: Lanes.Own),
        new(@"^\./scripts/bench\.sh\s+--spec specs/", Skip: "a seed experiment runs for minutes; every spec in specs/ is validated by RunSpecValidationTests, and bench.sh itself is run by the README's commands"),
        new(@"^\./scripts/bench\.sh\s+--spec \S+ --prices \S+ --verbose", Expect: @"# StorageBench run \S+ — Completed[\s\S]*Cost estimate: USD [\d.,]+ for the storage requests of this run \(an estimate, not a bill\), priced with pricing/azure-storage-prices\.json[\s\S]*\| tableInsert \| run \| 10 \| entity group transactions \|[\s\S]*Wrote summary\.json, summary\.md, summary\.html to \S+/", UserOut: true,
            Lane: Lanes.Own),
        new(@"^\./scripts/bench\.sh\s+--connection-string-file ", Expect: @"# StorageBench run \S+ — Completed[\s\S]*Wrote summary\.json, summary\.md, summary\.html to \S+/out/", UserOut: true, Lane: Lanes.Own),
        new(@"^\./scripts/bench\.sh(\s+#.*)?$", Expect: @"Starting Azurite[\s\S]*# StorageBench run \S+ — Completed[\s\S]*Wrote summary\.json, summary\.md, summary\.html to \S+/out/\S+/", UserOut: true,
            Lane: Lanes.Own),
        new(@"^\./scripts/query\.sh ", Expect: @"over \d+ run\(s\) in .*/sb-docs-\w+/out:\s*\n\|", UserOut: true, Lane: Lanes.Listings),
        new(@"^\./scripts/build-cli\.sh --pack && dotnet tool update --global StorageBench\.Cli --add-source \.build/packages$",
            Once: true, Lane: Lanes.Builds,
            // Either order: the output is stdout (dotnet tool) then stderr (build-cli.sh).
            Expect: @"\A(?=[\s\S]*^Packed \.build/packages/StorageBench\.Cli\.[\d.]+\.nupkg in \d+ s\.$)(?=[\s\S]*^Tool 'storagebench\.cli' (\(version '[\d.]+'\) was successfully installed|was successfully updated from version '[\d.]+' to version '[\d.]+')\.$)"),
        new(@"^storagebench --help$", Expect: @"^Usage:\s*\n\s*storagebench \[command\] \[options\][\s\S]*^Commands:[\s\S]*^\s+run\s[\s\S]*^\s+compare <BASELINE> <CANDIDATE>"),
        new(@"^storagebench run --help$", Expect: @"^\s+storagebench run \[options\][\s\S]*--spec <FILE>[\s\S]*-q, --quiet"),
        new(@"^storagebench --version$", Expect: @"\Astoragebench \d+\.\d+\.\d+ \(commit [0-9a-f]{12}\)\s*\z"),
        new(@"^storagebench run --spce x$", Exit: 2, Expect: @"\Aerror: unknown option '--spce' for 'storagebench run'; did you mean --spec\?\nRun 'storagebench run --help' for usage\.\s*\z"),
        new(@"^storagebench run --spec my-spec\.json --quiet$", Expect: @"\ACompleted: run \S+, verified; \S+/sb-docs-\w+/out/\S+/summary\.md\s*\z", UserOut: true),
        new(@"^storagebench run --spec my-spec\.json --out ", Expect: @"# StorageBench run \S+ — Completed[\s\S]*Cost estimate: USD [\d.,]+ for the storage requests of this run[^\n]*--verbose\)\.\n[\s\S]*Wrote summary\.json, summary\.md, summary\.html to \S+/",
            Lane: Lanes.Compare),
        new(@"^storagebench cleanup .*--dry-run", Expect: @"dry run: \d+ table\(s\) and container\(s\) older than 1d would be deleted; nothing was deleted"),
        new(@"^storagebench cleanup (?!.*--dry-run)", Expect: @"deleted \d+ table\(s\) and container\(s\) older than 1d"),
        new(@"^storagebench runs ", Expect: @"\| scenario \| run \|[\s\S]*\d+ run( row)?\(s\)", UserOut: true, Lane: Lanes.Listings),
        new(@"^storagebench (plan |run --spec results/plan\.json )", Skip: "reads the two measurement runs above it in docs/planning.md, minutes of Azurite each; PlanEndToEndTests runs the same sequence (measure, plan, run the written spec) and checks the run against the plan"),
        new(@"^storagebench compare results/today results/candidate ", Expect: @"^baseline\s+\S+\s+\(\S+/results/today/summary\.json;[\s\S]*^tableInsert\s+throughput\s+entities/s\s[\s\S]*^verdict: [\s\S]*Noise method: per-second spread[\s\S]*Wrote \S+/results/comparison\.md", Lane: Lanes.Compare),
        new(@"^storagebench serve --port 7071$", Expect: @"Runs API on http://127\.0\.0\.1:\d+/", Background: true, Lane: Lanes.Serve),
        new(@"^curl -i -X POST ""?http://(127\.0\.0\.1|localhost):7071/api/runs""? ", Expect: @"HTTP/1\.1 202[\s\S]*Location: http://127\.0\.0\.1:\d+/api/runs/(?<id>[\w-]+)[\s\S]*""id"": ""\k<id>""", Lane: Lanes.Serve),
        new(@"^curl ""?http://(127\.0\.0\.1|localhost):7071/api/runs/<(id|runId)>""?", Expect: @"^\{\s*""id"": ""(?<id>[\w-]+)""[\s\S]*""(progress|result)""", Lane: Lanes.Serve),
        new(@"^curl -X POST ""?http://(127\.0\.0\.1|localhost):7071/api/runs/<(id|runId)>/cancel""?", Expect: @"""result"":[\s\S]*""status"": ""Canceled""[\s\S]*""matched"": true", Lane: Lanes.Serve),
        new(@"^curl ""http://127\.0\.0\.1:7071/api/runs\?scenario=quick&last=5""$", Expect: @"""runs"": \[[\s\S]*""scenario"": ""quick""", Lane: Lanes.Serve),
        new(@"^storagebench run --spec my-spec\.json --connection-string-file account\.cs\s+# killed", Skip: ResumeTested),
        new(@"^storagebench run --resume ", Skip: ResumeTested),
        new(@"^storagebench worker ", Skip: "runs until Ctrl+C; " + ScaleOutTested),
        new(@"^storagebench run --external-workers ", Skip: ScaleOutTested),
        new(@"^npx azurite ", Skip: "starts Azurite on its default ports for func start, which cannot run here; the tests start their own Azurite"),
        new(@"^cp local\.settings\.sample\.json ", Skip: "prepares func start, which cannot run here (local.settings.sample.json is checked by FunctionAppTests)"),
        new(@"^func start ", Skip: CoreTools),
        new(@"^azd (up|provision)\b", Skip: Azure),
        new(@"^\./scripts/deploy\.sh ", Skip: Azure + " (the templates are compiled and linted by InfraTests)"),
        new(@"^key=\$\(az functionapp keys ", Skip: Azure),
        new(@"^curl .*https://<app>\.azurewebsites\.net/", Skip: Azure),
    ];

    [Fact]
    public async Task EveryCommandTheDocsShowRunsAsDocumentedOrIsSkippedWithAReason()
    {
        var commands = DocCommands.Extract(Repo.Root());
        Assert.True(commands.Count >= 20, $"only {commands.Count} commands found in the docs");
        Assert.True(!commands.Any(c => c.Text.Contains("dotnet run", StringComparison.Ordinal)),
            "the docs run the CLI as `storagebench …` (the installed tool), not `dotnet run`:\n" + string.Join('\n', commands.Where(c => c.Text.Contains("dotnet run", StringComparison.Ordinal)).Select(c => $"  {c.Where}: {c.Text}")));
        var unclassified = commands.Where(c => Rules.Count(r => r.Regex.IsMatch(c.Text)) != 1).ToList();
        Assert.True(unclassified.Count == 0, "each documented command needs exactly one rule in DocsCommandsTests.Rules (run it, or skip it with a reason):\n"
            + string.Join('\n', unclassified.Select(c => $"  {c.Where}: {c.Text}")));

        string userOut = Path.Combine(Repo.Root(), "out");
        string[] UserRuns() => Directory.Exists(userOut) ? Directory.GetFileSystemEntries(userOut).Order(StringComparer.Ordinal).ToArray() : [];
        var userRunsBefore = UserRuns();
        await using var azurite = await AzuriteServer.StartAsync();
        await using var shell = new DocShell(azurite.ConnectionString);
        var planned = commands.Select(c => (Command: c, Rule: Rules.Single(r => r.Regex.IsMatch(c.Text)))).ToList();
        var failures = new ConcurrentBag<(DocCommands.Command Command, string Problem)>();
        var ranOnce = new ConcurrentDictionary<string, (int Exit, string Output)>();
        var lanes = planned.GroupBy(p => p.Rule.Lane == Lanes.Own ? p.Command.Where : p.Rule.Lane).ToDictionary(g => g.Key, g => g.ToList());
        Task Lane(string lane) => lanes.TryGetValue(lane, out var commands) ? RunLaneAsync(commands, shell, ranOnce, failures) : Task.CompletedTask;
        bool Own(string lane) => lanes[lane].All(p => p.Rule.Lane == Lanes.Own);
        var benches = Task.WhenAll(lanes.Keys.Where(Own).Select(Lane));
        await Lane(Lanes.Builds);
        await Task.WhenAll(lanes.Keys.Where(l => !Own(l) && l is not (Lanes.Builds or Lanes.Listings)).Select(Lane).Append(benches));
        await Lane(Lanes.Listings);
        Assert.True(failures.IsEmpty, string.Join("\n\n", failures.OrderBy(f => f.Command.File, StringComparer.Ordinal).ThenBy(f => f.Command.Line).Select(f => f.Problem)));
        Assert.Equal(userRunsBefore, UserRuns());
        Assert.Empty(Rules.Where(r => !planned.Any(p => p.Rule == r)).Select(r => "rule matches no documented command (remove it): " + r.Pattern));

        // The installed tool says which commit it was built from: this checkout's.
        var (_, version) = await shell.RunAsync("storagebench --version");
        var (_, head) = await shell.RunAsync("git rev-parse HEAD");
        Assert.Contains($"(commit {head.Trim()[..12]})", version);

        // What serve prints is documentation too: its curl must be the one that works.
        Assert.Contains("--data-binary @specs/quick.json", shell.ServeBanner);
        Assert.DoesNotContain("--data @", shell.ServeBanner);

        // The command the docs used to show: --data @file strips the newlines, so the spec's first // comment
        // swallows the rest. This test fails on it (the POST rule's check does not pass) and the API says why.
        var post = Rules.Single(r => r.Pattern.StartsWith("^curl -i -X POST", StringComparison.Ordinal));
        var (oldExit, oldText) = await shell.RunAsync("""curl -i -X POST http://127.0.0.1:7071/api/runs -H "Content-Type: application/json" --data @specs/quick.json""");
        Assert.NotNull(Check(post, oldExit, oldText, shell));
        Assert.Contains("HTTP/1.1 400", oldText);
        Assert.Contains("curl --data strips newlines; send a file with --data-binary @FILE", oldText);
    }

    /// <summary>Runs one lane's commands in the docs' order (or says why one is skipped), and collects what did not do as documented.</summary>
    private async Task RunLaneAsync(IReadOnlyList<(DocCommands.Command Command, Rule Rule)> lane, DocShell shell,
        ConcurrentDictionary<string, (int Exit, string Output)> ranOnce, ConcurrentBag<(DocCommands.Command, string)> failures)
    {
        foreach (var (command, rule) in lane)
        {
            if (rule.Skip is not null)
            {
                output.WriteLine($"skip {command.Where}: {command.Text}\n     because {rule.Skip}");
                continue;
            }
            var timer = Stopwatch.StartNew();
            string asRun = rule.UserOut ? shell.InOwnOut(command.Text) : command.Text;
            if (!(rule.Once && ranOnce.TryGetValue(asRun, out var result)))
            {
                result = rule.Background ? await shell.StartServeAsync(asRun) : await shell.RunAsync(asRun);
                if (rule.Once)
                {
                    ranOnce[asRun] = result;
                }
            }
            var (exit, text) = result;
            output.WriteLine($"ran  {command.Where} ({rule.Lane}): {shell.Substitute(asRun)}  → exit {exit}, {timer.Elapsed.TotalSeconds:0.0} s");
            if (Check(rule, exit, text, shell) is { } problem)
            {
                failures.Add((command, $"{command.Where}: {command.Text}\n  {problem}\n  output:\n{Indent(text)}"));
            }
        }
    }

    /// <summary>Null when the command did what the docs say; else what went wrong.</summary>
    private static string? Check(Rule rule, int exit, string text, DocShell shell)
    {
        if (exit != rule.Exit)
        {
            return $"exit {exit}, expected {rule.Exit}";
        }
        var match = Regex.Match(text, rule.Expect!, RegexOptions.Multiline);
        if (!match.Success)
        {
            return $"output does not match /{rule.Expect}/";
        }
        if (match.Groups["id"].Success)
        {
            shell.LastRunId = match.Groups["id"].Value;
        }
        return null;
    }

    private static string Indent(string text) =>
        string.Join('\n', text.Split('\n').TakeLast(40).Select(l => "    " + l));
}
