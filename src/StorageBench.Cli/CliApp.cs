using System.CommandLine;
using System.CommandLine.Invocation;
using System.Reflection;
using StorageBench.Engine.StorageCalls;

namespace StorageBench.Cli;

/// <summary>What every command's handler writes to, and whether stdout is a terminal (progress updates in place).</summary>
public sealed record CliContext(TextWriter Stdout, TextWriter Stderr, bool Terminal);

/// <summary>
/// The `storagebench` command line: the commands (one file each: RunCommand.cs, RunsCommand.cs, ...), parsed by
/// System.CommandLine. Help goes to stdout (exit 0); a usage error names the bad token, suggests the close one and
/// exits 2. No benchmark logic here.
/// </summary>
public static class CliApp
{
    public const string Name = "storagebench";

    /// <summary>Exit code of a bad command line, a rejected spec or a bad setting (nothing was started).</summary>
    public const int UsageError = 2;

    /// <summary>Exit code of a gate that could not judge (--fail-if-slower, run --nightly): too short a run, too few samples or baseline runs; the line says what to change.</summary>
    public const int CouldNotJudge = 3;

    /// <param name="terminal">stdout is a terminal: progress is one line updated in place, not a line per update.</param>
    public static async Task<int> RunAsync(string[] args, TextWriter stdout, TextWriter stderr, CancellationToken ct, bool terminal = false)
    {
        var cli = new CliContext(stdout, stderr, terminal);
        var root = Root(cli);
        // `storagebench help [command]` as `storagebench [command] --help`, as git and dotnet do.
        var result = root.Parse(args is ["help", .. var rest] ? [.. rest, "--help"] : args);
        if (result.Errors.Count > 0)
        {
            await UsageErrors.WriteAsync(result, stderr).ConfigureAwait(false);
            return UsageError;
        }
        await SecretOption.WarnAsync(result, stderr).ConfigureAwait(false);
        var invocation = new InvocationConfiguration
        {
            Output = stdout,
            Error = stderr,
            // StopSignals (Program.cs) alone handles Ctrl+C, SIGTERM and SIGQUIT: a run stops and cleans up, however long that
            // takes. A timeout here would register System.CommandLine's own SIGINT/SIGTERM handler, which forces an exit after it.
            ProcessTerminationTimeout = null,
            // Exceptions reach the filter below (and cancellation reaches Program.cs), not a generic stack trace.
            EnableDefaultExceptionHandler = false,
        };
        try
        {
            return await result.InvokeAsync(invocation, ct).ConfigureAwait(false);
        }
        catch (LocalSetupException ex)
        {
            // This machine, not storage: what is missing or busy, and what to do.
            await stderr.WriteLineAsync("error: " + StorageTarget.Redact(ex.Message)).ConfigureAwait(false);
            return 1;
        }
        catch (TargetServiceMissingException ex)
        {
            // The settings name no endpoint for a service this command needs (a blob-only account as a results table): bad input.
            await stderr.WriteLineAsync("error: " + StorageTarget.Redact(ex.Message)).ConfigureAwait(false);
            return UsageError;
        }
        catch (Exception ex) when (StorageFailures.Classify(ex, ct) is { } failure)
        {
            // Storage refused or could not be reached outside a run (a run reports its own errors).
            string hint = failure.Status == 403 ? " (check the account key or SAS in the connection string)" : "";
            await stderr.WriteLineAsync(StorageTarget.Redact($"error: storage: {failure.Text}{hint}")).ConfigureAwait(false);
            return 1;
        }
    }

    /// <summary>Every command. A new one is its own file with a Create(cli) that declares it, and a line here.</summary>
    public static RootCommand Root(CliContext cli)
    {
        var root = new RootCommand("StorageBench: benchmarks Azure Table and Blob storage writes and reads against Azurite or a storage account.")
        {
            RunCommand.Create(cli),
            RunsCommand.Create(cli),
            ServeCommand.Create(cli),
            WorkerCommand.Create(cli),
            CleanupCommand.Create(cli),
            QueryCommand.Create(cli),
            CompareCommand.Create(cli),
            AbCommand.Create(cli),
            PlanCommand.Create(cli),
        };
        SecretOption.AddFiles(root);
        root.Options.OfType<VersionOption>().Single().Action = new VersionAction();
        root.SetAction(async (_, _) =>
        {
            // No command: a usage error, with the list of commands where the user looks for it.
            await cli.Stderr.WriteLineAsync($"error: no command given; run '{Name} --help' for the commands").ConfigureAwait(false);
            return UsageError;
        });
        return root;
    }

    /// <summary>"0.1.0 (commit 1a2b3c4d5e6f)": the version and commit summaries record (<see cref="Engine.Measurement.ToolVersion"/>): one version everywhere.</summary>
    public static string Version()
    {
        string? commit = Engine.Measurement.ToolVersion.Commit;
        return $"{Engine.Measurement.ToolVersion.Version} (commit {(commit is null ? "unknown (built outside a git checkout)" : commit[..Math.Min(12, commit.Length)])})";
    }

    private sealed class VersionAction : SynchronousCommandLineAction
    {
        public override int Invoke(ParseResult parseResult)
        {
            parseResult.InvocationConfiguration.Output.WriteLine($"{Name} {Version()}");
            return 0;
        }
    }

    /// <summary>The run spec of a run without --spec: the built-in quick scenario (specs/quick.json).</summary>
    internal static string DefaultSpec()
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream("quick.json")!;
        return new StreamReader(stream).ReadToEnd();
    }
}
