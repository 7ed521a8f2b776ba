using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
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
/// docs is a decision, not an accident.
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
    private sealed record Rule(string Pattern, string? Expect = null, string? Skip = null, bool Background = false, int Exit = 0, bool UserOut = false,
        bool Once = false)
    {
        public Regex Regex { get; } = new(Pattern);
    }

    private const string Azure = "needs an Azure subscription (az login); this machine has no internet";
    private const string ResumeTested = "a run killed mid-run and resumed takes minutes; ResumeAndScaleOutTests kills such a run with SIGKILL and resumes it with these commands";
    private const string ScaleOutTested = "ResumeAndScaleOutTests runs two `storagebench worker` processes and `run --external-workers` as shown";
    private const string CoreTools = "Azure Functions Core Tools cannot be installed here; the same HTTP contract is run below against storagebench serve";

    private static readonly Rule[] Rules =
    [
        new(@"^\./scripts/test\.sh(\s+#.*)?$", Skip: "it is the command that runs this test"),
        new(@"^\./scripts/test\.sh --unit(\s+#.*)?$", Skip: "its dotnet test would rebuild the test assembly this test runs in; every full run runs the same unit tests, and TestCategoryTests checks each test class has its category"),
        new(@"^\./scripts/bench\.sh\s+--spec (?!specs/)(?![^#]*--prices)", Expect: @"# StorageBench run \S+ — Completed[\s\S]*Wrote summary\.json, summary\.md, summary\.html to \S+/"),
        new(@"^\./scripts/bench\.sh\s+--spec specs/", Skip: "a seed experiment runs for minutes; every spec in specs/ is validated by RunSpecValidationTests, and bench.sh itself is run by the README's commands"),
        new(@"^\./scripts/bench\.sh\s+--spec \S+ --prices \S+ --verbose", Expect: @"# StorageBench run \S+ — Completed[\s\S]*Cost estimate: USD [\d.,]+ for the storage requests of this run \(an estimate, not a bill\), priced with pricing/azure-storage-prices\.json[\s\S]*\| tableInsert \| run \| 10 \| entity group transactions \|[\s\S]*Wrote summary\.json, summary\.md, summary\.html to \S+/", UserOut: true),
        new(@"^\./scripts/bench\.sh\s+--connection-string ", Expect: @"# StorageBench run \S+ — Completed[\s\S]*Wrote summary\.json, summary\.md, summary\.html to \S+/out/", UserOut: true),
        new(@"^\./scripts/bench\.sh(\s+#.*)?$", Expect: @"Starting Azurite[\s\S]*# StorageBench run \S+ — Completed[\s\S]*Wrote summary\.json, summary\.md, summary\.html to \S+/out/\S+/", UserOut: true),
        new(@"^\./scripts/query\.sh ", Expect: @"over \d+ run\(s\) in .*/sb-docs-\w+/out:\s*\n\|", UserOut: true),
        new(@"^\./scripts/build-cli\.sh --pack && dotnet tool update --global StorageBench\.Cli --add-source \.build/packages$",
            Once: true,
            // Either order: the output is stdout (dotnet tool) then stderr (build-cli.sh).
            Expect: @"\A(?=[\s\S]*^Packed \.build/packages/StorageBench\.Cli\.[\d.]+\.nupkg in \d+ s\.$)(?=[\s\S]*^Tool 'storagebench\.cli' (\(version '[\d.]+'\) was successfully installed|was successfully updated from version '[\d.]+' to version '[\d.]+')\.$)"),
        new(@"^storagebench --help$", Expect: @"^Usage:\s*\n\s*storagebench \[command\] \[options\][\s\S]*^Commands:[\s\S]*^\s+run\s[\s\S]*^\s+compare <BASELINE> <CANDIDATE>"),
        new(@"^storagebench run --help$", Expect: @"^\s+storagebench run \[options\][\s\S]*--spec <FILE>[\s\S]*-q, --quiet"),
        new(@"^storagebench --version$", Expect: @"\Astoragebench \d+\.\d+\.\d+ \(commit [0-9a-f]{12}\)\s*\z"),
        new(@"^storagebench run --spce x$", Exit: 2, Expect: @"\Aerror: unknown option '--spce' for 'storagebench run'; did you mean --spec\?\nRun 'storagebench run --help' for usage\.\s*\z"),
        new(@"^storagebench run --spec my-spec\.json --quiet$", Expect: @"\ACompleted: run \S+, verified; \S+/sb-docs-\w+/out/\S+/summary\.md\s*\z", UserOut: true),
        new(@"^storagebench run --spec my-spec\.json --out ", Expect: @"# StorageBench run \S+ — Completed[\s\S]*Cost estimate: USD [\d.,]+ for the storage requests of this run[^\n]*--verbose\)\.\n[\s\S]*Wrote summary\.json, summary\.md, summary\.html to \S+/"),
        new(@"^storagebench cleanup .*--dry-run", Expect: @"dry run: \d+ table\(s\) and container\(s\) older than 1d would be deleted; nothing was deleted"),
        new(@"^storagebench cleanup (?!.*--dry-run)", Expect: @"deleted \d+ table\(s\) and container\(s\) older than 1d"),
        new(@"^storagebench runs ", Expect: @"\| scenario \| run \|[\s\S]*\d+ run( row)?\(s\)", UserOut: true),
        new(@"^storagebench (plan |run --spec results/plan\.json )", Skip: "reads the two measurement runs above it in docs/planning.md, minutes of Azurite each; PlanEndToEndTests runs the same sequence (measure, plan, run the written spec) and checks the run against the plan"),
        new(@"^storagebench compare results/today results/candidate ", Expect: @"^baseline\s+\S+\s+\(\S+/results/today/summary\.json;[\s\S]*^tableInsert\s+throughput\s+entities/s\s[\s\S]*^verdict: [\s\S]*Noise method: per-second spread[\s\S]*Wrote \S+/results/comparison\.md"),
        new(@"^storagebench serve --port 7071$", Expect: @"Runs API on http://127\.0\.0\.1:\d+/", Background: true),
        new(@"^curl -i -X POST ""?http://(127\.0\.0\.1|localhost):7071/api/runs""? ", Expect: @"HTTP/1\.1 202[\s\S]*Location: http://127\.0\.0\.1:\d+/api/runs/(?<id>[\w-]+)[\s\S]*""id"": ""\k<id>"""),
        new(@"^curl ""?http://(127\.0\.0\.1|localhost):7071/api/runs/<(id|runId)>""?", Expect: @"^\{\s*""id"": ""(?<id>[\w-]+)""[\s\S]*""(progress|result)"""),
        new(@"^curl -X POST ""?http://(127\.0\.0\.1|localhost):7071/api/runs/<(id|runId)>/cancel""?", Expect: @"""result"":[\s\S]*""status"": ""Canceled""[\s\S]*""matched"": true"),
        new(@"^curl ""http://127\.0\.0\.1:7071/api/runs\?scenario=quick&last=5""$", Expect: @"""runs"": \[[\s\S]*""scenario"": ""quick"""),
        new(@"^storagebench run --spec my-spec\.json --connection-string ""\$ACCOUNT""\s+# killed", Skip: ResumeTested),
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
        var used = new HashSet<Rule>();
        var ranOnce = new Dictionary<string, (int Exit, string Output)>();
        var failures = new List<string>();
        foreach (var command in commands)
        {
            var rule = Rules.Single(r => r.Regex.IsMatch(command.Text));
            used.Add(rule);
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
            output.WriteLine($"ran  {command.Where}: {shell.Substitute(asRun)}  → exit {exit}, {timer.Elapsed.TotalSeconds:0.0} s");
            string? problem = Check(rule, exit, text, shell);
            if (problem is not null)
            {
                failures.Add($"{command.Where}: {command.Text}\n  {problem}\n  output:\n{Indent(text)}");
            }
        }
        Assert.True(failures.Count == 0, string.Join("\n\n", failures));
        Assert.Equal(userRunsBefore, UserRuns());
        Assert.Empty(Rules.Where(r => !used.Contains(r)).Select(r => "rule matches no documented command (remove it): " + r.Pattern));

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

/// <summary>The shell commands in the fenced bash blocks of the repository's Markdown files.</summary>
internal static class DocCommands
{
    public sealed record Command(string File, int Line, string Text)
    {
        public string Where => $"{File}:{Line}";
    }

    private static readonly string[] Skipped = ["node_modules", "bin", "obj", "out", ".build", "TestResults", ".git"];

    public static IReadOnlyList<Command> Extract(string root)
    {
        var commands = new List<Command>();
        foreach (string path in Directory.EnumerateFiles(root, "*.md", SearchOption.AllDirectories)
                     .Where(p => !Path.GetRelativePath(root, p).Split(Path.DirectorySeparatorChar).Any(Skipped.Contains))
                     .Order(StringComparer.Ordinal))
        {
            string file = Path.GetRelativePath(root, path);
            string[] lines = File.ReadAllLines(path);
            bool shell = false, inBlock = false;
            for (int i = 0; i < lines.Length; i++)
            {
                string line = lines[i].Trim();
                if (line.StartsWith("```", StringComparison.Ordinal))
                {
                    shell = !inBlock && line[3..].Trim() is "bash" or "sh" or "shell";
                    inBlock = !inBlock;
                    continue;
                }
                if (!shell || line.Length == 0 || line.StartsWith('#'))
                {
                    continue;
                }
                int first = i;
                while (line.EndsWith('\\') && i + 1 < lines.Length)
                {
                    line = line[..^1] + " " + lines[++i].Trim();
                }
                commands.Add(new Command(file, first + 1, line));
            }
        }
        return commands;
    }
}

/// <summary>
/// Runs documented commands with bash from the repository root, as a user would, with what the docs
/// leave to the reader filled in: $ACCOUNT / $MY_ACCOUNT (this test's Azurite), port 7071 (a free
/// port for serve), &lt;id&gt; (the last run started), my-spec.json and results/… (a small spec, a
/// temporary directory).
/// </summary>
internal sealed class DocShell : IAsyncDisposable
{
    private readonly string _root = Repo.Root();
    private readonly string _temp = Path.Combine(Path.GetTempPath(), "sb-docs-" + Guid.NewGuid().ToString("N")[..8]);
    private readonly string _connectionString;
    private readonly int _port = FreePort();
    private string Tools => Path.Combine(_temp, "tools");
    private Process? _serve;
    private readonly StringBuilder _serveOutput = new();

    public DocShell(string connectionString)
    {
        _connectionString = connectionString;
        Directory.CreateDirectory(_temp);
        File.WriteAllText(Path.Combine(_temp, "my-spec.json"), """
            { "scenario": "docs-my-spec", "startDelaySeconds": 0, "tableInsert": { "entityCount": 500, "batchSize": 50 } }
            """);
    }

    public string? LastRunId { get; set; }

    public string ServeBanner
    {
        get
        {
            lock (_serveOutput)
            {
                return _serveOutput.ToString();
            }
        }
    }

    public string Substitute(string command) => command
        .Replace("localhost:7071", $"127.0.0.1:{_port}", StringComparison.Ordinal)
        .Replace("127.0.0.1:7071", $"127.0.0.1:{_port}", StringComparison.Ordinal)
        .Replace("--port 7071", $"--port {_port}", StringComparison.Ordinal)
        .Replace("dotnet tool update --global ", $"dotnet tool update --tool-path {Tools} ", StringComparison.Ordinal)
        .Replace("<id>", LastRunId ?? "<id>", StringComparison.Ordinal)
        .Replace("<runId>", LastRunId ?? "<runId>", StringComparison.Ordinal)
        .Replace(" my-spec.json", " " + Path.Combine(_temp, "my-spec.json"), StringComparison.Ordinal)
        .Replace(" results/", " " + Path.Combine(_temp, "results") + "/", StringComparison.Ordinal);

    private int _runs;

    /// <summary>
    /// The command with this test's folder in place of the user's <c>out/</c>: a run without <c>--out</c> writes under it, and
    /// a listing without an account or <c>--results</c> reads it. The command's trailing comment stays last.
    /// </summary>
    public string InOwnOut(string command)
    {
        var parts = Regex.Match(command, @"^(?<command>.*?)(?<comment>\s+#.*)?$");
        string text = parts.Groups["command"].Value;
        string own = Path.Combine(_temp, "out");
        string? option = Regex.IsMatch(text, @"^(storagebench runs|\./scripts/query\.sh)\b")
            ? text.Contains("--connection-string", StringComparison.Ordinal) || text.Contains("--results", StringComparison.Ordinal) ? null : $" --results {own}"
            : text.Contains("--out ", StringComparison.Ordinal) ? null : $" --out {Path.Combine(own, (++_runs).ToString(System.Globalization.CultureInfo.InvariantCulture))}";
        return text + option + parts.Groups["comment"].Value;
    }

    public async Task<(int Exit, string Output)> RunAsync(string command)
    {
        using var process = Start(command);
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(15));
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            return (-1, "timed out after 15 minutes\n" + await stdout + await stderr);
        }
        return (process.ExitCode, await stdout + await stderr);
    }

    /// <summary>Starts a server command (serve) and waits for its banner; it is stopped when the test ends.</summary>
    public async Task<(int Exit, string Output)> StartServeAsync(string command)
    {
        var listening = new TaskCompletionSource();
        _serve = Start(command);
        DataReceivedEventHandler collect = (_, e) =>
        {
            lock (_serveOutput)
            {
                _serveOutput.AppendLine(e.Data);
            }
            if (e.Data?.Contains("Runs API on", StringComparison.Ordinal) == true)
            {
                listening.TrySetResult();
            }
        };
        _serve.OutputDataReceived += collect;
        _serve.ErrorDataReceived += collect;
        _serve.BeginOutputReadLine();
        _serve.BeginErrorReadLine();
        var exited = _serve.WaitForExitAsync();
        var first = await Task.WhenAny(listening.Task, exited, Task.Delay(TimeSpan.FromMinutes(3)));
        return (first == listening.Task ? 0 : _serve.HasExited ? _serve.ExitCode : -1, ServeBanner);
    }

    private Process Start(string command)
    {
        var psi = new ProcessStartInfo("bash") { WorkingDirectory = _root, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        psi.ArgumentList.Add("-c");
        psi.ArgumentList.Add(Substitute(command));
        psi.Environment["ACCOUNT"] = _connectionString;
        psi.Environment["MY_ACCOUNT"] = _connectionString;
        // `storagebench` is the tool the README's install line put into this test's tool directory.
        psi.Environment["PATH"] = Tools + Path.PathSeparator + psi.Environment["PATH"];
        BuildEnvironment.Clean(psi);
        return Process.Start(psi)!;
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    public async ValueTask DisposeAsync()
    {
        if (_serve is { HasExited: false })
        {
            // As Ctrl+C would: serve stops its Azurite on the way out.
            _serve.Kill(entireProcessTree: true);
            await _serve.WaitForExitAsync();
        }
        _serve?.Dispose();
        Directory.Delete(_temp, recursive: true);
    }
}
