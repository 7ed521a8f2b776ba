using System.CommandLine;
using System.CommandLine.Parsing;
using StorageBench.Engine;

namespace StorageBench.Cli;

/// <summary>
/// A bad command line on stderr, short: each problem naming the token, the closest option or command when one is
/// near ("did you mean --spec?"), and where the usage is. Not the whole help: that is --help, on stdout.
/// </summary>
public static class UsageErrors
{
    public static async Task WriteAsync(ParseResult result, TextWriter stderr)
    {
        var command = result.CommandResult.Command;
        string path = CommandPath(result.CommandResult);
        // An unknown option swallows nothing: its value shows up as an unknown token too; name the option only.
        var unknown = result.UnmatchedTokens.Where(t => t.StartsWith('-')).ToList() is { Count: > 0 } options ? options : result.UnmatchedTokens.Take(1).ToList();
        foreach (string token in unknown)
        {
            string kind = token.StartsWith('-') ? "option" : "command or argument";
            string hint = Nearest.Closest(token, Names(command)) is { } near ? $"; did you mean {near}?" : "";
            // A stray token may be a connection string: its key and SAS are never printed.
            await stderr.WriteLineAsync($"error: unknown {kind} '{StorageTarget.Redact(token)}' for '{path}'{hint}").ConfigureAwait(false);
        }
        var messages = result.Errors.Where(e => !result.UnmatchedTokens.Any(t => e.Message.Contains($"'{t}'", StringComparison.Ordinal)))
            .Select(e => Message(e, result.CommandResult)).Distinct();
        foreach (string message in messages)
        {
            await stderr.WriteLineAsync("error: " + StorageTarget.Redact(message)).ConfigureAwait(false);
        }
        await stderr.WriteLineAsync($"Run '{path} --help' for usage.").ConfigureAwait(false);
    }

    /// <summary>
    /// Each token through <paramref name="parse"/>; a FormatException's message (it names the option, value and rule) becomes the parse
    /// error, after "<paramref name="option"/>: " when given (a parser of the Engine names the value and the rule, not the CLI's option).
    /// </summary>
    public static List<T>? ParseEach<T>(ArgumentResult result, Func<string, T> parse, string? option = null)
    {
        try
        {
            return [.. result.Tokens.Select(t => parse(t.Value))];
        }
        catch (FormatException ex)
        {
            result.AddError(option is null ? ex.Message : $"{option}: {ex.Message}");
            return null;
        }
    }

    /// <summary>An option of one value read by <paramref name="parse"/>; its FormatException (naming the option, value and rule) is the usage error.</summary>
    public static Option<T?> ParsedOption<T>(string name, string helpName, string description, Func<string, T> parse) where T : struct => new(name)
    {
        Description = description, HelpName = helpName, CustomParser = r => ParseEach(r, parse) is [var v] ? v : null,
    };

    /// <summary>A missing value or argument by its name ("compare: CANDIDATE is missing"); other errors as the parser says them.</summary>
    private static string Message(ParseError error, CommandResult command)
    {
        if (!error.Message.StartsWith("Required argument missing", StringComparison.Ordinal))
        {
            return error.Message;
        }
        var owner = error.SymbolResult is ArgumentResult { Parent: { } parent } ? parent : error.SymbolResult;
        if (owner is OptionResult o)
        {
            return $"{o.Option.Name}: a value is required ({o.Option.Name} <{o.Option.HelpName ?? "VALUE"}>)";
        }
        var arguments = command.Command.Arguments;
        var missing = arguments.Where(a => command.GetResult(a) is not { Tokens.Count: > 0 }).Select(a => a.Name).ToList();
        return missing.Count == 0 ? error.Message
            : $"{command.Command.Name}: {string.Join(" and ", missing)} {(missing.Count == 1 ? "is" : "are")} missing ({command.Command.Name} {string.Join(' ', arguments.Select(a => a.Name))})";
    }

    /// <summary>"storagebench run": the command's name after its parents'.</summary>
    private static string CommandPath(CommandResult result)
    {
        var names = new List<string>();
        for (SymbolResult? r = result; r is not null; r = r.Parent)
        {
            if (r is CommandResult c)
            {
                names.Insert(0, c.Command is RootCommand ? CliApp.Name : c.Command.Name);
            }
        }
        return string.Join(' ', names);
    }

    /// <summary>What could have been meant at this point: the command's options (with aliases) and subcommands.</summary>
    private static IEnumerable<string> Names(Command command) =>
        command.Options.Where(o => !o.Hidden).SelectMany(o => o.Aliases.Prepend(o.Name))
            .Concat(command.Subcommands.Where(c => !c.Hidden).Select(c => c.Name));
}
