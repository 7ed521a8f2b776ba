using System.CommandLine;
using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;
using StorageBench.Engine.Cleanup;

namespace StorageBench.Cli;

/// <summary>`storagebench cleanup`: deletes this tool's leftover tables and containers, and nothing else.</summary>
public static class CleanupCommand
{
    public static Command Create(CliContext cli)
    {
        string defaultAge = string.Create(CultureInfo.InvariantCulture, $"{RunStarter.LeftoverAgeHours:0}h");
        var olderThan = new Option<string>("--older-than")
        {
            Description = "only what was created more than AGE ago, e.g. 30m, 6h, 2d (no run lives longer than the default)",
            HelpName = "AGE", DefaultValueFactory = _ => defaultAge,
            Validators = { r => { if (r.Tokens is [var t] && ParseAge(t.Value) is null) { r.AddError($"--older-than: \"{t.Value}\" must be a duration like 30m, 6h or 2d (s, m, h or d)"); } } },
        };
        var dryRun = new Option<bool>("--dry-run") { Description = "list what would be deleted and delete nothing" };
        var connectionString = CliTargets.ConnectionStringOption("the account to clean (default: the STORAGEBENCH_TARGET_* settings)");
        var command = new Command("cleanup", "Delete this tool's leftover tables and containers (a driver killed mid-run leaves its step's behind): " +
            "only names of the form sbt/sbb + yyyyMMddHHmmss + step id, created more than AGE ago; never anything else in the account.")
        {
            olderThan, dryRun, connectionString,
        };
        command.SetAction((r, ct) => RunAsync(r.GetValue(olderThan)!, r.GetValue(dryRun), r.GetValue(connectionString), cli.Stdout, cli.Stderr, ct));
        return command;
    }

    /// <summary>Lists, and unless <paramref name="dryRun"/> deletes, this tool's tables and containers older than <paramref name="age"/>.</summary>
    public static async Task<int> RunAsync(string age, bool dryRun, string? connectionString, TextWriter stdout, TextWriter stderr, CancellationToken ct)
    {
        var targets = CliTargets.GivenTargets(connectionString, out var bad);
        if (targets.Count == 0)
        {
            await stderr.WriteLineAsync("error: " + (bad ?? "--connection-string: required (cleanup looks in an existing account), or the STORAGEBENCH_TARGET_* settings")).ConfigureAwait(false);
            return CliApp.UsageError;
        }
        var olderThan = ParseAge(age)!.Value;
        var now = DateTime.UtcNow;
        var cleaner = new TargetCleaner(targets);
        var all = await cleaner.ListAsync(_ => true, ct).ConfigureAwait(false);
        var leftovers = all.Where(l => l.CreatedUtc <= now - olderThan).ToList();
        await stdout.WriteAsync(Table(leftovers, now)).ConfigureAwait(false);
        if (!dryRun)
        {
            await cleaner.DeleteAsync(leftovers, ct).ConfigureAwait(false);
        }
        await stdout.WriteLineAsync(Outcome(leftovers.Count, all.Count - leftovers.Count, age, dryRun)).ConfigureAwait(false);
        return 0;
    }

    /// <summary>The leftovers as a Markdown table, each with the name of the account it is in.</summary>
    public static string Table(IEnumerable<Leftover> leftovers, DateTime nowUtc)
    {
        var b = new StringBuilder();
        b.AppendLine("| account | kind | name | created (UTC) | age |");
        b.AppendLine("|---|---|---|---|---:|");
        foreach (var l in leftovers)
        {
            b.AppendLine(CultureInfo.InvariantCulture, $"| {l.AccountName} | {l.Kind} | {l.Name} | {l.CreatedUtc:u} | {(nowUtc - l.CreatedUtc).TotalHours:0.0} h |");
        }
        return b.ToString();
    }

    /// <summary>What was (or would be) deleted, and how many younger ones were left, with the option that takes them too.</summary>
    public static string Outcome(int old, int younger, string age, bool dryRun)
    {
        string done = dryRun
            ? $"dry run: {old} table(s) and container(s) older than {age} would be deleted; nothing was deleted"
            : $"deleted {old} table(s) and container(s) older than {age}";
        // A younger one may belong to a run still going; the user decides, knowing it is there.
        return younger == 0 ? done
            : $"{done}; {younger} younger than {age} left alone (a run may still be writing them; --older-than with a shorter age, e.g. 0s, includes them)";
    }

    /// <summary>"90s", "30m", "6h", "2d" (a number and a unit); null otherwise.</summary>
    public static TimeSpan? ParseAge(string text)
    {
        var m = Regex.Match(text.Trim(), @"^([0-9]+(?:\.[0-9]+)?)\s*(s|m|h|d)$");
        if (!m.Success)
        {
            return null;
        }
        double n = double.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture);
        return m.Groups[2].Value switch { "s" => TimeSpan.FromSeconds(n), "m" => TimeSpan.FromMinutes(n), "h" => TimeSpan.FromHours(n), _ => TimeSpan.FromDays(n) };
    }
}
