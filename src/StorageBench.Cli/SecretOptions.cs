using System.CommandLine;
using System.CommandLine.Parsing;

namespace StorageBench.Cli;

/// <summary>
/// A connection string option that keeps keys off the command line: every <c>--X</c> has a <c>--X-file FILE</c> twin that
/// reads the string from a file (a command line is readable by every user of the machine in /proc/PID/cmdline), and
/// <c>--X</c>'s value is the file's when only the file is given. A key given on the command line itself still works, with a
/// one-line warning (<see cref="WarnAsync"/>).
/// </summary>
public sealed class SecretOption : Option<string?>
{
    public SecretOption(string name, string description) : base(name)
    {
        Description = description + $" (keep a key off the command line: {name}-file FILE, or the setting)";
        HelpName = "CS";
        File = new Option<string?>(name + "-file") { Description = $"a file whose content is the connection string of {name}", HelpName = "FILE" };
        // Read here, not by the file option itself: a bad file is then one error of this option's value, never an exception.
        DefaultValueFactory = r => r.GetResult(File) is { Tokens: [var path] } ? Read(r, name, path.Value) : null;
        Validators.Add(r =>
        {
            if (!r.Implicit && r.GetResult(File) is { Implicit: false })
            {
                r.AddError($"{name} and {File.Name}: give one of them, not both");
            }
        });
    }

    /// <summary>The <c>--X-file</c> twin; <see cref="CliApp.Root"/> adds it to every command that has this option.</summary>
    public Option<string?> File { get; }

    private static string? Read(ArgumentResult result, string name, string path)
    {
        try
        {
            string text = System.IO.File.ReadAllText(path).Trim();
            if (text.Length == 0)
            {
                result.AddError($"{name}-file: \"{path}\" is empty: it must hold the connection string");
            }
            return text;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            result.AddError($"{name}-file: \"{path}\" cannot be read: {ex.Message}");
            return null;
        }
    }

    /// <summary>Adds the file twin of every secret option of <paramref name="command"/> and its subcommands.</summary>
    public static void AddFiles(Command command)
    {
        foreach (var secret in command.Options.OfType<SecretOption>().ToList())
        {
            command.Options.Add(secret.File);
        }
        foreach (var sub in command.Subcommands)
        {
            AddFiles(sub);
        }
    }

    /// <summary>
    /// One line on stderr for each secret option given a key or SAS on the command line itself: anyone on the machine can read
    /// it there. The well-known development key (Azurite's, published) is no secret and gets none.
    /// </summary>
    public static async Task WarnAsync(ParseResult result, TextWriter stderr)
    {
        foreach (var option in result.CommandResult.Children.OfType<OptionResult>().Where(o => o.Option is SecretOption && !o.Implicit))
        {
            if (option.Tokens is [{ } token] && StorageTarget.HasSecret(token.Value))
            {
                await stderr.WriteLineAsync($"warning: {option.Option.Name} puts the account's key on the command line, where every user of this machine " +
                    $"can read it; use {option.Option.Name}-file FILE or the setting instead").ConfigureAwait(false);
            }
        }
    }
}
