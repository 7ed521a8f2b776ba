using System.CommandLine;
using StorageBench.Engine.Comparison;

namespace StorageBench.Cli;

/// <summary>
/// `ab` and `plan`: their options are declared here (help, typo suggestions and usage errors come from the declarations),
/// and handed to the handlers as "--name value" pairs, whose parsing beside the handler names the option, the value and the rule.
/// </summary>
public static class OptionBagCommands
{
    public static Command Ab(CliContext cli)
    {
        var command = new Command("ab", "Run two specs alternately on one target, N rounds of one run each, and judge candidate / baseline of " +
            "throughput, p50 and p99 with a 95 % confidence interval (docs/comparing.md). " +
            "Exit 0 judged, 1 slower than --fail-if-slower allows or a run failed, 2 bad arguments or spec, 3 --fail-if-slower could not judge (the line says what to change).");
        var options = Declare(command,
            ("--baseline", "SPEC", "the baseline run spec JSON (required)"),
            ("--candidate", "SPEC", "the candidate run spec JSON (required)"),
            ("--rounds", "N", $"runs of each side, from {ChangeRule.MinRoundsASide} to {AbOptions.MaxRounds} (default {AbOptions.DefaultRounds})"),
            ("--order", "alternate|random", "alternate: ABBA rounds (default); random: a coin flip per round"),
            ("--seed", "N", "seed of --order random"),
            ("--threshold", "PERCENT", $"a change inside ±PERCENT is not claimed (default {AbOptions.DefaultThresholdPercent})"),
            ("--fail-if-slower", "PERCENT", "exit 1 when the throughput interval lies wholly below 1 − PERCENT"),
            ("--out", "FILE.md", "also write the comparison as Markdown"),
            ("--runs-dir", "DIR", "where each run's reports go (default: out)"),
            ("--connection-string", "CS", "storage account to test (default: the STORAGEBENCH_TARGET_* settings if set, else Azurite started on loopback)"),
            ("--hub-connection-string", "CS", "storage account of the control plane (default: the STORAGEBENCH_HUB_CONNECTION_STRING setting, else the hub store's own Azurite)"),
            ("--prices", "FILE", "price table of the cost estimate (default: the built-in pricing/azure-storage-prices.json)"));
        command.SetAction(async (r, ct) =>
        {
            AbOptions ab;
            try
            {
                ab = AbOptions.Parse(Read(r, options));
            }
            catch (FormatException ex)
            {
                await cli.Stderr.WriteLineAsync("error: " + ex.Message).ConfigureAwait(false);
                return CliApp.UsageError;
            }
            if (await AbCommand.ReadSpecsAsync(ab, cli.Stderr, ct).ConfigureAwait(false) is not { } specs
                || await CliTargets.PricesAsync(Read(r, options).GetValueOrDefault("--prices"), cli.Stderr).ConfigureAwait(false) is not { } prices)
            {
                return CliApp.UsageError;
            }
            return await CliTargets.WithTargetsAsync(Read(r, options).GetValueOrDefault("--connection-string"), Read(r, options).GetValueOrDefault("--hub-connection-string"),
                cli.Stdout, cli.Stderr, (targets, plane) => AbCommand.RunAsync(ab, specs.Baseline, specs.Candidate, targets, plane, prices, cli.Stdout, cli.Stderr, ct), ct).ConfigureAwait(false);
        });
        return command;
    }

    public static Command Plan(CliContext cli)
    {
        var command = new Command("plan", "Plan partitions, slices, in-flight requests per slice, accounts and Function App instances for a target rate " +
            "from measured runs, with the documented scalability targets; print the bottleneck, the measured latency and the cost per hour " +
            "(docs/planning.md). Exit 0 planned, 1 the measurements cannot support the rate, 2 bad arguments.");
        var options = Declare(command,
            ("--target", "RATE", "the rate to plan for (required), e.g. 50000"),
            ("--unit", "entities/s|MB/s", "entities/s (table, default) or MB/s (blob)"),
            ("--p99-ms", "MS", "the p99 latency the plan must keep"),
            ("--entity-size", "BYTES", "entity size of the plan (entities/s only)"),
            ("--from", "RUN", "a measured run: a run id in the results table, a summary.json, an out/<runId> directory or a directory of them (default: out); repeatable"),
            ("--write-spec", "FILE", "write the run spec that carries the plan out"),
            ("--instance-memory-mb", "512|2048|4096", "Flex Consumption instance size (default 2048)"),
            ("--duration", "SECONDS", "duration of the written spec"),
            ("--targets", "FILE", "scalability targets (default: the built-in pricing/scalability-targets.json)"),
            ("--prices", "FILE", "price table (default: the built-in pricing/azure-storage-prices.json)"),
            ("--connection-string", "CS", "the account whose results table holds the run ids (default: the STORAGEBENCH_RESULTS_* or STORAGEBENCH_HUB_CONNECTION_STRING setting)"));
        command.SetAction((r, ct) =>
        {
            var bag = Read(r, options);
            var results = CliTargets.ResultsTarget(bag.GetValueOrDefault("--connection-string"), out var badResults);
            return PlanCommand.RunAsync(bag, results, badResults, cli.Stdout, cli.Stderr, ct);
        });
        return command;
    }

    /// <summary>One string option per (name, value name, description); each may be given more than once (values joined by newlines).</summary>
    private static List<Option<string[]>> Declare(Command command, params (string Name, string Value, string Description)[] declarations)
    {
        var options = declarations.Select(d => new Option<string[]>(d.Name) { Description = d.Description, HelpName = d.Value, Arity = ArgumentArity.OneOrMore }).ToList();
        options.ForEach(command.Options.Add);
        return options;
    }

    private static Dictionary<string, string> Read(ParseResult r, List<Option<string[]>> options) =>
        options.Where(o => r.GetValue(o) is { Length: > 0 }).ToDictionary(o => o.Name, o => string.Join('\n', r.GetValue(o)!));
}
