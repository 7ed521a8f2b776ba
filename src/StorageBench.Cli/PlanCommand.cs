using System.Globalization;
using System.Text.Json;
using StorageBench.Engine.Workloads;
using StorageBench.Engine;
using StorageBench.Engine.Capacity;
using StorageBench.Engine.Cost;
using StorageBench.Engine.Planning;
using StorageBench.Engine.Reports;
using StorageBench.Engine.ResultsStore;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;
using StorageBench.Engine.Targets;

namespace StorageBench.Cli;

/// <summary>
/// <c>storagebench plan</c>: from measured runs to the partitions, slices, in-flight requests, accounts and Function App
/// instances that reach a target rate, its bottleneck, latency and cost; optionally the spec that carries it out.
/// The model is <see cref="CapacityPlanner"/>; this only reads the runs and writes the answer.
/// </summary>
public static class PlanCommand
{
    public const string Usage = """
        usage: storagebench plan --target RATE [--unit entities/s|MB/s] [--p99-ms MS] [--entity-size BYTES] [--from RUN]...
                                 [--write-spec FILE] [--instance-memory-mb 512|2048|4096] [--duration SECONDS]
                                 [--targets FILE] [--prices FILE] [--connection-string CS]
          plans partitions, slices, in-flight requests per slice, accounts and Function App instances for RATE from
          measured runs (each --from: a run id in the results table, a summary.json, an out/<runId> directory, or a
          directory of them; default: out), with the documented scalability targets (--targets, default the built-in
          pricing/scalability-targets.json); prints the bottleneck, the measured latency and the cost per hour;
          --write-spec writes the run spec that carries the plan out. Exit 1 when the measurements cannot support RATE.
        """;

    public static readonly string[] Options = ["--target", "--unit", "--p99-ms", "--entity-size", "--from", "--write-spec", "--instance-memory-mb",
        "--duration", "--targets", "--prices", "--connection-string"];

    /// <summary>The CLI's string options (repeated --from joined by newlines), checked and typed; exit 2 naming the option on a bad one.</summary>
    public static async Task<int> RunAsync(IReadOnlyDictionary<string, string> options, StorageTarget? results, string? resultsError,
        TextWriter stdout, TextWriter stderr, CancellationToken ct)
    {
        PlanRequest request;
        try
        {
            string unit = options.GetValueOrDefault("--unit") ?? CapacityPlanner.EntitiesPerSecond;
            if (!WorkloadKind.All.Any(k => k.RateUnit == unit))
            {
                throw new FormatException($"--unit: \"{unit}\" must be {string.Join(" or ", WorkloadKind.All.Select(k => $"{k.RateUnit} ({k.Name})"))}");
            }
            double target = Number(options, "--target", 1e-6, 1e9, "a rate above 0, e.g. 50000") ?? throw new FormatException("--target: (missing) is required: the rate to plan for, e.g. --target 50000");
            int? entitySize = (int?)Number(options, "--entity-size", 1, ServiceLimits.MaxEntityPayloadBytes, "a whole number of bytes from 1 to " + ServiceLimits.MaxEntityPayloadBytes, whole: true);
            if (entitySize is not null && unit != CapacityPlanner.EntitiesPerSecond)
            {
                throw new FormatException($"--entity-size: \"{options["--entity-size"]}\" applies to --unit {CapacityPlanner.EntitiesPerSecond} only");
            }
            int memory = (int)(Number(options, "--instance-memory-mb", 512, 4096, "512, 2048 or 4096 (a Flex Consumption instance size)", whole: true) ?? 2048);
            if (memory is not (512 or 2048 or 4096))
            {
                throw new FormatException($"--instance-memory-mb: \"{memory}\" must be 512, 2048 or 4096 (a Flex Consumption instance size)");
            }
            request = new PlanRequest(target, unit, Number(options, "--p99-ms", 1e-3, 3_600_000, "a latency in milliseconds above 0"), entitySize, memory,
                Number(options, "--duration", 1, 86_400, "seconds from 1 to 86400"));
        }
        catch (FormatException ex)
        {
            await stderr.WriteLineAsync("error: " + ex.Message).ConfigureAwait(false);
            return 2;
        }
        string[] from = options.TryGetValue("--from", out var f) ? f.Split('\n') : ["out"];
        return await RunAsync(request, from, options.GetValueOrDefault("--write-spec"), options.GetValueOrDefault("--targets"), options.GetValueOrDefault("--prices"),
            results, resultsError, stdout, stderr, ct).ConfigureAwait(false);
    }

    /// <summary>Reads the runs, plans, prints; 0 planned, 1 refused (the reason printed), 2 a bad argument or unreadable input.</summary>
    public static async Task<int> RunAsync(PlanRequest request, IReadOnlyList<string> from, string? writeSpec, string? targetsFile, string? pricesFile,
        StorageTarget? results, string? resultsError, TextWriter stdout, TextWriter stderr, CancellationToken ct)
    {
        var (targets, targetErrors) = ScalabilityTargets.Read(targetsFile);
        var (prices, priceErrors) = PriceTableReader.Resolve(pricesFile, Environment.GetEnvironmentVariable);
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

    private static double? Number(IReadOnlyDictionary<string, string> options, string option, double min, double max, string rule, bool whole = false)
    {
        if (!options.TryGetValue(option, out var text))
        {
            return null;
        }
        return double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double v) && v >= min && v <= max && (!whole || v == Math.Floor(v))
            ? v
            : throw new FormatException($"{option}: \"{text}\" must be {rule}");
    }
}
