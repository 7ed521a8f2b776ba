using System.CommandLine;
using System.Globalization;
using System.Text.Json;
using StorageBench.Engine;
using StorageBench.Engine.Capacity;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Reports;

namespace StorageBench.Cli;

/// <summary>
/// <c>storagebench plan</c>: from measured runs to the partitions, slices, in-flight requests, accounts and Function App
/// instances that reach a target rate, its bottleneck, latency and cost; optionally the spec that carries it out.
/// The model is <see cref="CapacityPlanner"/>; this only reads the runs and writes the answer.
/// </summary>
public static class PlanCommand
{
    public static Command Create(CliContext cli)
    {
        var target = UsageErrors.ParsedOption("--target", "RATE", "the rate to plan for (required), e.g. 50000",
            t => Number("--target", t, 1e-6, 1e9, "a rate above 0, e.g. 50000"));
        var unit = new Option<string?>("--unit")
        {
            Description = $"{CapacityPlanner.Units}; default: --workload's unit, else {CapacityPlanner.EntitiesPerSecond}; without --workload, the first workload listed plans",
            HelpName = string.Join('|', CapacityPlanner.Planning.Select(w => w.Kind.RateUnit).Distinct()),
            CustomParser = r => UsageErrors.ParseEach(r, t => CapacityPlanner.Planning.Any(w => w.Kind.RateUnit == t) ? t
                : throw new FormatException($"--unit: \"{t}\" must be {CapacityPlanner.Units}")) is [var u] ? u : null,
        };
        var workload = new Option<string?>("--workload")
        {
            Description = $"the workload to plan: {string.Join(", ", CapacityPlanner.Planning.Select(w => w.Name))}; default: the first that plans in --unit",
            HelpName = "NAME",
        };
        var p99 = UsageErrors.ParsedOption("--p99-ms", "MS", "the p99 latency the plan must keep", t => Number("--p99-ms", t, 1e-3, 3_600_000, "a latency in milliseconds above 0"));
        var entitySize = UsageErrors.ParsedOption("--entity-size", "BYTES", $"entity size of the plan ({CapacityPlanner.EntitiesPerSecond} only)",
            t => (int)Number("--entity-size", t, 1, ServiceLimits.MaxEntityPayloadBytes, "a whole number of bytes from 1 to " + ServiceLimits.MaxEntityPayloadBytes, whole: true));
        var from = new Option<string[]>("--from")
        {
            Description = "a measured run: a run id in the results table, a summary.json, an out/<runId> directory or a directory of them (default: out); repeatable",
            HelpName = "RUN",
        };
        var writeSpec = new Option<string?>("--write-spec") { Description = "write the run spec that carries the plan out", HelpName = "FILE" };
        var memory = UsageErrors.ParsedOption("--instance-memory-mb", "512|2048|4096", "Flex Consumption instance size (default 2048)",
            t => int.TryParse(t, NumberStyles.None, CultureInfo.InvariantCulture, out int mb) && mb is 512 or 2048 or 4096 ? mb
                : throw new FormatException($"--instance-memory-mb: \"{t}\" must be 512, 2048 or 4096 (a Flex Consumption instance size)"));
        var duration = UsageErrors.ParsedOption("--duration", "SECONDS", "duration of the written spec", t => Number("--duration", t, 1, 86_400, "seconds from 1 to 86400"));
        var targets = new Option<string?>("--targets") { Description = "scalability targets (default: the built-in pricing/scalability-targets.json)", HelpName = "FILE" };
        var prices = CliTargets.PricesOption();
        var connectionString = CliTargets.ConnectionStringOption("the account whose results table holds the run ids (default: the STORAGEBENCH_RESULTS_* or STORAGEBENCH_HUB_CONNECTION_STRING setting)");
        var command = new Command("plan", "Plan partitions, slices, in-flight requests per slice, accounts and Function App instances for a target rate " +
            "from measured runs, with the documented scalability targets; print the bottleneck, the measured latency and the cost per hour " +
            "(docs/planning.md). Exit 0 planned, 1 the measurements cannot support the rate, 2 bad arguments.")
        {
            target, unit, workload, p99, entitySize, from, writeSpec, memory, duration, targets, prices, connectionString,
        };
        command.Validators.Add(r =>
        {
            if (r.GetResult(target) is null)
            {
                r.AddError("--target: (missing) is required: the rate to plan for, e.g. --target 50000");
            }
            string? unitGiven;
            try
            {
                unitGiven = r.GetValue(unit);
            }
            catch (InvalidOperationException)
            {
                return;   // --unit's own parse error is reported already: one line for one bad value
            }
            var (room, unplanned) = CapacityPlanner.Choose(r.GetValue(workload), unitGiven);
            if (room is null)
            {
                r.AddError(r.GetValue(workload) is null ? $"--unit: {unplanned}" : $"--workload: {unplanned}");
            }
            else if (r.GetValue(entitySize) is { } size && room.Kind.RateUnit != CapacityPlanner.EntitiesPerSecond)
            {
                r.AddError($"--entity-size: \"{size}\" applies to --unit {CapacityPlanner.EntitiesPerSecond} only");
            }
        });
        command.SetAction((r, ct) =>
        {
            var room = CapacityPlanner.Choose(r.GetValue(workload), r.GetValue(unit)).Room!;
            var request = new PlanRequest(r.GetValue(target)!.Value, room.Kind.RateUnit, r.GetValue(p99), r.GetValue(entitySize),
                r.GetValue(memory) ?? 2048, r.GetValue(duration), room.Name);
            var results = CliTargets.ResultsTarget(r.GetValue(connectionString), out var badResults);
            return RunAsync(request, r.GetValue(from) is { Length: > 0 } runs ? runs : ["out"], r.GetValue(writeSpec), r.GetValue(targets), r.GetValue(prices),
                results, badResults, cli.Stdout, cli.Stderr, ct);
        });
        return command;
    }

    /// <summary>Reads the runs, plans, prints; 0 planned, 1 refused (the reason printed), 2 a bad argument or unreadable input.</summary>
    public static async Task<int> RunAsync(PlanRequest request, IReadOnlyList<string> from, string? writeSpec, string? targetsFile, string? pricesFile,
        StorageTarget? results, string? resultsError, TextWriter stdout, TextWriter stderr, CancellationToken ct)
    {
        var (targets, targetErrors) = ScalabilityTargets.Read(targetsFile, "--targets");
        var (prices, priceErrors) = PriceTableReader.Resolve(pricesFile, "--prices", Environment.GetEnvironmentVariable);
        if (targets is null || prices is null)
        {
            await stderr.WriteLineAsync($"error: {(targets is null ? $"the scalability targets {targetsFile} (--targets)" : "the price table")} was rejected; nothing was planned:").ConfigureAwait(false);
            foreach (var e in targetErrors.Concat(priceErrors))
            {
                await stderr.WriteLineAsync("  " + e).ConfigureAwait(false);
            }
            return 2;
        }
        var steps = new List<MeasuredStep>();
        var summaries = new Dictionary<string, (RunSummary Summary, string Directory)>();
        try
        {
            using var store = results is null ? null : new ResultsTableStore(results);
            foreach (string argument in from)
            {
                steps.AddRange(await LoadAsync(argument, store, resultsError, summaries, ct).ConfigureAwait(false));
            }
        }
        catch (FormatException ex)
        {
            await stderr.WriteLineAsync("error: " + ex.Message).ConfigureAwait(false);
            return 2;
        }
        // The same run given twice (a directory and its run id) counts once.
        steps = [.. steps.DistinctBy(s => (s.RunId, s.Workload, s.StepParameter, s.StepValue))];
        var runIds = steps.Select(s => s.RunId).Distinct().ToList();
        await stdout.WriteLineAsync($"Read {steps.Count} measured step(s) from {runIds.Count} run(s): {string.Join(", ", runIds)}").ConfigureAwait(false);
        var outcome = CapacityPlanner.Plan(steps, request, targets, prices);
        if (outcome.Plan is not { } plan)
        {
            await stdout.WriteLineAsync($"refused: {outcome.Refusal}").ConfigureAwait(false);
            return 1;
        }
        await stdout.WriteAsync(CapacityPlanText.Render(plan, targets)).ConfigureAwait(false);
        if (writeSpec is not null)
        {
            try
            {
                await File.WriteAllTextAsync(writeSpec, SpecText(plan), ct).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
            {
                await stderr.WriteLineAsync($"error: --write-spec: \"{writeSpec}\" cannot be written: {ex.Message}").ConfigureAwait(false);
                return 2;
            }
            await stdout.WriteLineAsync($"Wrote {writeSpec}: run it with `storagebench run --spec {writeSpec}`").ConfigureAwait(false);
        }
        if (summaries.TryGetValue(plan.OperatingPoint.RunId, out var measured) && Mark(plan) is { } mark && measured.Summary.Workloads.Any(w => w.StepParameter == mark.Parameter))
        {
            string html = Path.Combine(measured.Directory, "summary.html");
            try
            {
                await File.WriteAllTextAsync(html, HtmlReportWriter.Render(measured.Summary, mark), ct).ConfigureAwait(false);
                await stdout.WriteLineAsync($"Marked the operating point on the curve in {html}").ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                // The plan stands without the picture: say where the mark could not go.
                await stderr.WriteLineAsync($"warning: the operating point could not be marked in \"{html}\": {ex.Message}").ConfigureAwait(false);
            }
        }
        return 0;
    }

    /// <summary>The spec the plan writes: the validated spec, with a comment saying where it came from.</summary>
    public static string SpecText(CapacityPlan plan) =>
        string.Create(CultureInfo.InvariantCulture, $"// written by storagebench plan: {plan.Request.Target:0.###} {plan.Request.Unit} from {plan.OperatingPoint.Label}\n")
        + JsonSerializer.Serialize(plan.Spec, WrittenSpecOptions) + "\n";

    private static readonly JsonSerializerOptions WrittenSpecOptions =
        new(RunSpecParser.Options) { WriteIndented = true, DefaultIgnoreCondition = System.Text.Json.Serialization.JsonIgnoreCondition.WhenWritingNull };

    /// <summary>The plan's point on its operating step's curve: that step's value, at the rate the plan asks of as many slices as the step ran.</summary>
    private static PlanMark? Mark(CapacityPlan plan)
    {
        var op = plan.OperatingPoint;
        if (op.StepParameter is null || op.StepValue is not { } x)
        {
            return null;
        }
        double y = plan.ExpectedThroughput / plan.Slices * op.Slices;
        string unit = plan.Request.Unit;
        return new PlanMark(op.Workload, op.StepParameter, x, y, string.Create(CultureInfo.InvariantCulture, $"plan: {y:N0} {unit} at {x:0.###}"),
            string.Create(CultureInfo.InvariantCulture,
                $"storagebench plan: {plan.Request.Target:N0} {unit} over {plan.Slices} slice(s) operates at {op.StepParameter} = {x:0.###}, asking {y:N0} {unit} of {op.Slices} slice(s) where this step measured {op.Rate:N0} (bottleneck: {plan.Bottleneck.Name})."));
    }

    /// <summary>One --from argument: a summary.json, a directory holding one, a directory of such directories, or a run id in the results table.</summary>
    private static async Task<IReadOnlyList<MeasuredStep>> LoadAsync(string argument, ResultsTableStore? store, string? resultsError,
        Dictionary<string, (RunSummary, string)> summaries, CancellationToken ct)
    {
        if (File.Exists(argument) || File.Exists(Path.Combine(argument, "summary.json")))
        {
            return Read(File.Exists(argument) ? argument : Path.Combine(argument, "summary.json"), argument, summaries);
        }
        if (Directory.Exists(argument))
        {
            var files = Directory.EnumerateDirectories(argument).Select(d => Path.Combine(d, "summary.json")).Where(File.Exists).Order(StringComparer.Ordinal).ToList();
            if (files.Count == 0)
            {
                throw new FormatException($"--from: \"{argument}\" is a directory with no summary.json in it or in its subdirectories");
            }
            return [.. files.SelectMany(file => Read(file, argument, summaries))];
        }
        if (!Planner.IsValidRunId(argument))
        {
            throw new FormatException($"--from: \"{argument}\" is neither a summary.json or directory that exists nor a run id (lowercase letters, digits and dashes)");
        }
        if (store is null)
        {
            throw new FormatException(resultsError ?? $"--from: \"{argument}\" is a run id, which is read from the results table: give --connection-string or the STORAGEBENCH_TARGET_* settings");
        }
        var figures = await store.LoadRunFiguresAsync(argument, ct).ConfigureAwait(false)
            ?? throw new FormatException($"--from: \"{argument}\" is no run in the results table ({ResultsTableStore.DefaultRunsTable}) and no summary.json file");
        var setup = await store.LoadRunSetupAsync(argument, ct).ConfigureAwait(false)
            ?? throw new FormatException($"--from: \"{argument}\" has no spec in its results-table row (written before the plan command existed): give its summary.json instead");
        return MeasuredStep.From(figures, setup);
    }

    private static IReadOnlyList<MeasuredStep> Read(string file, string argument, Dictionary<string, (RunSummary, string)> summaries)
    {
        RunSummary summary;
        try
        {
            summary = JsonSerializer.Deserialize<RunSummary>(File.ReadAllText(file), JsonDefaults.Options) ?? throw new JsonException("the file holds null, not a run summary");
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or JsonException)
        {
            throw new FormatException($"--from: \"{argument}\": {file} cannot be read as a summary.json: {ErrorText.Compact(ex.Message)}");
        }
        summaries[summary.RunId] = (summary, Path.GetDirectoryName(Path.GetFullPath(file))!);
        return MeasuredStep.From(summary, file);
    }

    private static double Number(string option, string text, double min, double max, string rule, bool whole = false) =>
        double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double v) && v >= min && v <= max && (!whole || v == Math.Floor(v))
            ? v
            : throw new FormatException($"{option}: \"{text}\" must be {rule}");
}
