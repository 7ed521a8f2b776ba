using System.Globalization;
using Azure.Core;
using Microsoft.ApplicationInsights;
using Microsoft.ApplicationInsights.Channel;
using Microsoft.ApplicationInsights.Extensibility;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;

namespace StorageBench.Results;

/// <summary>
/// Sends a run to Application Insights as custom events (customEvents / AppEvents): one per run and
/// one per workload (per sweep step), with the run's parameters as dimensions and its figures as
/// measurements, so KQL can trend and compare them.
/// </summary>
public sealed class TelemetryEmitter : IDisposable
{
    public const string RunEvent = "StorageBenchRun";
    public const string WorkloadEvent = "StorageBenchWorkload";
    public const string RegressionEvent = "StorageBenchRegression";

    private readonly TelemetryConfiguration _configuration;
    private readonly TelemetryClient _client;

    /// <param name="credential">Set for AAD ingestion (local auth disabled on the resource), e.g. a managed identity.</param>
    public TelemetryEmitter(string connectionString, TokenCredential? credential = null)
    {
        _configuration = new TelemetryConfiguration { ConnectionString = connectionString, TelemetryChannel = new InMemoryChannel() };
        if (credential is not null)
        {
            _configuration.SetAzureTokenCredential(credential);
        }
        _client = new TelemetryClient(_configuration);
    }

    public async Task EmitAsync(RunSummary summary, CancellationToken ct)
    {
        var common = Common(summary);
        _client.TrackEvent(RunEvent, new Dictionary<string, string>(common)
        {
            ["status"] = summary.Status,
            ["errors"] = string.Join(" | ", summary.Errors),
            ["saturationParameter"] = summary.Saturation?.Parameter ?? "",
            ["saturationReason"] = summary.Saturation?.Reason ?? "",
        }, new Dictionary<string, double>
        {
            ["durationSeconds"] = (summary.EndedUtc - summary.StartedUtc).TotalSeconds,
            ["workloads"] = summary.Workloads.Count,
            ["instances"] = summary.Environment.Instances,
            ["saturationHighest"] = summary.Saturation?.HighestSustainableValue ?? double.NaN,
            ["saturationKnee"] = summary.Saturation?.KneeValue ?? double.NaN,
        }.Where(kv => !double.IsNaN(kv.Value)).ToDictionary());

        foreach (var w in summary.Workloads)
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
            _client.TrackEvent(WorkloadEvent, properties, Measurements(w));
        }
        await _client.FlushAsync(ct).ConfigureAwait(false);
    }

    public async Task EmitRegressionAsync(RunSummary summary, RegressionVerdict verdict, CancellationToken ct)
    {
        _client.TrackEvent(RegressionEvent, new Dictionary<string, string>(Common(summary))
        {
            ["verdict"] = verdict.Verdict,
            ["reason"] = verdict.Reason,
        }, new Dictionary<string, double> { ["baselineRuns"] = verdict.BaselineRuns });
        await _client.FlushAsync(ct).ConfigureAwait(false);
    }

    public void Dispose() => _configuration.Dispose();

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
        if (w.Workload == "tableInsert" && step.TableInsert is { } t)
        {
            yield return ("entitySizeBytes", I(t.EntitySizeBytes));
            yield return ("batchSize", I(t.BatchSize));
            yield return ("partitionCount", I(t.PartitionCount));
            yield return ("concurrency", I(t.Concurrency));
            yield return ("slices", I(t.Slices));
            yield return ("targetOperationsPerSecond", I(t.TargetOperationsPerSecond));
        }
        else if (step.BlobUpload is { } b)
        {
            yield return ("blobSizeBytes", I(b.BlobSizeBytes));
            yield return ("blockSizeBytes", I(b.BlockSizeBytes));
            yield return ("parallelBlocks", I(b.ParallelBlocks));
            yield return ("slices", I(b.Slices));
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
            ["latencyMinMs"] = w.LatencyMs.Min,
            ["latencyP50Ms"] = w.LatencyMs.P50,
            ["latencyMeanMs"] = w.LatencyMs.Mean,
            ["latencyP90Ms"] = w.LatencyMs.P90,
            ["latencyP95Ms"] = w.LatencyMs.P95,
            ["latencyP99Ms"] = w.LatencyMs.P99,
            ["latencyP999Ms"] = w.LatencyMs.P999,
            ["latencyMaxMs"] = w.LatencyMs.Max,
            ["clientCpuSeconds"] = w.ClientCpuSeconds,
        };
        void Add(string name, double? value)
        {
            if (value is { } v)
            {
                m[name] = v;
            }
        }
        Add("entities", w.Entities);
        Add("bytes", w.Bytes);
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
