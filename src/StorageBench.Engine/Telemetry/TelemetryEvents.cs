using System.Globalization;


namespace StorageBench.Engine.Telemetry;

/// <summary>One custom event as Application Insights stores it in the workspace table AppEvents.</summary>
public sealed record AppEvent(string Name, DateTime TimeGenerated, IReadOnlyDictionary<string, string> Properties, IReadOnlyDictionary<string, double> Measurements);

/// <summary>
/// The events a run becomes: one StorageBenchRun, one StorageBenchWorkload per workload (per sweep
/// step) and, when judged, one StorageBenchRegression. The emitter sends exactly these; local
/// queries read exactly these, so both see the same shape.
/// </summary>
public static class TelemetryEvents
{
    /// <summary>Every event of an assembled summary: the run's own and one per workload.</summary>
    public static IReadOnlyList<AppEvent> From(RunSummary summary) => [.. ForRun(summary), .. ForWorkloads(summary, summary.Workloads)];

    /// <summary>The run's own events: StorageBenchRun and, when judged, StorageBenchRegression.</summary>
    public static IReadOnlyList<AppEvent> ForRun(RunSummary summary)
    {
        var events = new List<AppEvent>();
        var common = Common(summary);
        events.Add(new AppEvent(TelemetryEmitter.RunEvent, summary.EndedUtc, new Dictionary<string, string>(common)
        {
            ["status"] = summary.Status,
            ["errors"] = string.Join(" | ", summary.Errors),
            ["saturationParameter"] = summary.Saturation?.Parameter ?? "",
            ["saturationReason"] = summary.Saturation?.Reason ?? "",
        }, new Dictionary<string, double>
        {
            ["durationSeconds"] = (summary.EndedUtc - summary.StartedUtc).TotalSeconds,
            ["steps"] = summary.Steps.Count,
            ["instances"] = summary.Environment.Instances,
            ["workers"] = summary.Environment.Workers,
            ["saturationHighest"] = summary.Saturation?.HighestSustainableValue ?? double.NaN,
            ["saturationKnee"] = summary.Saturation?.KneeValue ?? double.NaN,
        }.Where(kv => !double.IsNaN(kv.Value)).ToDictionary()));

        if (summary.Regression is { } verdict)
        {
            events.Add(new AppEvent(TelemetryEmitter.RegressionEvent, summary.EndedUtc, new Dictionary<string, string>(common)
            {
                ["verdict"] = verdict.Verdict,
                ["reason"] = verdict.Reason,
            }, new Dictionary<string, double> { ["baselineRuns"] = verdict.BaselineRuns }));
        }
        return events;
    }

    /// <summary>One StorageBenchWorkload event per workload; <paramref name="run"/> names the run (and the step's status, for a step).</summary>
    public static IReadOnlyList<AppEvent> ForWorkloads(RunSummary run, IEnumerable<WorkloadSummary> workloads)
    {
        var events = new List<AppEvent>();
        var common = Common(run);
        var summary = run;
        foreach (var w in workloads)
        {
            var properties = new Dictionary<string, string>(common)
            {
                ["status"] = summary.Status,
                ["workload"] = w.Workload,
                ["stepParameter"] = w.StepParameter ?? "",
                ["stepValue"] = w.StepValue?.ToString(CultureInfo.InvariantCulture) ?? "",
                ["verified"] = w.Verified.Matched ? "true" : "false",
            };
            foreach (var (name, value) in Parameters(summary.Spec, w))
            {
                properties[name] = value;
            }
            events.Add(new AppEvent(TelemetryEmitter.WorkloadEvent, summary.EndedUtc, properties, Measurements(w)));
        }
        return events;
    }

    private static Dictionary<string, string> Common(RunSummary s) => new()
    {
        ["scenario"] = s.Spec?.Scenario ?? "",
        ["runId"] = s.RunId,
        ["targetKind"] = s.Environment.TargetKind,
        ["host"] = s.Environment.Host,
        ["machine"] = s.Environment.Machine,
        ["runtime"] = s.Environment.Runtime,
        ["startedUtc"] = s.StartedUtc.ToString("O", CultureInfo.InvariantCulture),
    };

    /// <summary>The knobs this workload ran with (for a sweep step, with the step's value applied).</summary>
    private static IEnumerable<(string, string)> Parameters(RunSpec? spec, WorkloadSummary w)
    {
        if (spec is null)
        {
            yield break;
        }
        var step = w.StepParameter is { } p && w.StepValue is { } v ? SpecVariants.Apply(spec, p, v) : spec;
        string I(double x) => x.ToString(CultureInfo.InvariantCulture);
        yield return ("sdkRetries", step.Client.SdkRetries ? "true" : "false");
        yield return ("maxConnectionsPerServer", I(step.Client.MaxConnectionsPerServer));
        if (WorkloadList.Find(w.Workload) is { } room && room.SectionOf(step) is { } section)
        {
            foreach (var parameter in room.Parameters(section))
            {
                yield return parameter;
            }
        }
    }

    private static Dictionary<string, double> Measurements(WorkloadSummary w)
    {
        var m = new Dictionary<string, double>
        {
            ["operations"] = w.Operations,
            ["succeeded"] = w.Succeeded,
            ["failed"] = w.Failed,
            ["throttled"] = w.Throttled,
            ["timedOut"] = w.TimedOut,
            ["serverErrors"] = w.ServerErrors,
            ["clientErrors"] = w.ClientErrors,
            ["networkErrors"] = w.NetworkErrors,
            ["throttledShare"] = w.Operations == 0 ? 0 : (double)w.Throttled / w.Operations,
            ["durationSeconds"] = w.DurationSeconds,
            ["operationsPerSecond"] = w.Throughput.OperationsPerSecond,
            ["clientCpuSeconds"] = w.ClientCpuSeconds,
        };
        // A figure of no samples is absent, never 0.
        void Add(string name, double? value)
        {
            if (value is { } v)
            {
                m[name] = v;
            }
        }
        var l = w.LatencyMs;
        Add("latencyMinMs", l.Min);
        Add("latencyP50Ms", l.P50);
        Add("latencyMeanMs", l.Mean);
        Add("latencyP90Ms", l.P90);
        Add("latencyP95Ms", l.P95);
        Add("latencyP99Ms", l.P99);
        Add("latencyP999Ms", l.P999);
        Add("latencyMaxMs", l.Max);
        Add("serviceTimeP50Ms", w.ServiceTimeMs?.P50);
        Add("serviceTimeP99Ms", w.ServiceTimeMs?.P99);
        Add("serviceTimeMaxMs", w.ServiceTimeMs?.Max);
        // Reading workloads' own figures: a download's time to first byte beside its latency; a query's entities per page; reads that came back other than seeded.
        Add("timeToFirstByteP50Ms", w.TimeToFirstByteMs?.P50);
        Add("timeToFirstByteP99Ms", w.TimeToFirstByteMs?.P99);
        Add("entitiesPerQueryPage", w.EntitiesPerQueryPage);
        Add("mismatches", w.Mismatches);
        if (w.ScheduleLag is { } lag)
        {
            Add("scheduleLagP99Ms", lag.P99Ms);
            Add("scheduleLagMaxMs", lag.MaxMs);
            m["lateRequests"] = lag.LateRequests;
            m["droppedOperations"] = lag.DroppedOperations;
        }
        Add("entities", w.Entities);
        Add("bytes", w.Bytes);
        m["planned"] = w.Planned;
        m["stored"] = w.Stored;
        m["unstoredShare"] = w.UnstoredShare;
        Add("blobsPlanned", w.BlobsPlanned);
        Add("blobsCommitted", w.BlobsCommitted);
        Add("blobsFailed", w.BlobsFailed);
        Add("bytesSent", w.BytesSent);
        Add("bytesSentForFailedBlobs", w.BytesSentForFailedBlobs);
        Add("blockMegabytesPerSecond", w.BlockThroughput?.MegabytesPerSecond);
        Add("entitiesPerSecond", w.Throughput.EntitiesPerSecond);
        Add("kilobytesPerSecond", w.Throughput.KilobytesPerSecond);
        Add("megabytesPerSecond", w.Throughput.MegabytesPerSecond);
        Add("megabitsPerSecond", w.Throughput.MegabitsPerSecond);
        Add("peakPerSecond", w.PeakPerSecond);
        Add("clientCpuMicrosecondsPerEntity", w.ClientCpuMicrosecondsPerEntity);
        Add("clientCpuMicrosecondsPerMegabyte", w.ClientCpuMicrosecondsPerMegabyte);
        return m;
    }
}
