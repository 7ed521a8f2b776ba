using System.Globalization;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Statistics;

namespace StorageBench.Orchestration;

/// <summary>
/// The search the seed authors did by hand: step the load up and stop at the first step whose
/// throttled share or p99 breaks its bound. Judges only the workload the parameter belongs to.
/// </summary>
public sealed class SaturationSearch(SaturationSpec spec)
{
    private readonly string _workload = spec.Parameter.Split('.')[0];
    private double? _highest;
    private WorkloadSummary? _atHighest;
    private double? _knee;
    private string _reason = "reached saturation.max without breaking a bound";

    public string Parameter => spec.Parameter;

    public IEnumerable<double> Values => spec.Values();

    /// <summary>Records a step; false when it broke a bound (the search stops).</summary>
    public bool Continue(double value, IReadOnlyList<WorkloadSummary> step)
    {
        var w = step.FirstOrDefault(s => s.Workload == _workload);
        if (w is null)
        {
            _reason = $"step {Format(value)} produced no {_workload} result";
            return false;
        }
        // Every failed request counts against the bound, not only 503s: a step whose requests time out
        // or error is not sustainable either. A step with no successful request has no p99 to judge.
        double failedShare = w.Operations == 0 ? 1 : (double)w.Failed / w.Operations;
        string? broke = w.LatencyMs.Samples == 0 ? $"at {Format(value)} no request succeeded"
            : failedShare > spec.MaxFailedShare ? $"at {Format(value)} failed share {failedShare:P2} (throttled {w.Throttled}, timed out {w.TimedOut}, other {w.Failed - w.Throttled - w.TimedOut}) exceeded {spec.MaxFailedShare:P2}"
            : w.LatencyMs.P99 > spec.MaxP99Ms ? $"at {Format(value)} p99 {w.LatencyMs.P99:0.#} ms exceeded {spec.MaxP99Ms:0.#} ms"
            : null;
        if (broke is not null)
        {
            _knee = value;
            _reason = broke;
            return false;
        }
        _highest = value;
        _atHighest = w;
        return true;
    }

    /// <summary>The search ended because a step could not run (the run's errors say why): no knee was found.</summary>
    public void Stop(double value, string why) => _reason = $"stopped at {Format(value)}: {why}";

    public SaturationResult Result() => new(spec.Parameter, _highest,
        _atHighest?.Throughput.EntitiesPerSecond ?? _atHighest?.Throughput.MegabytesPerSecond,
        _workload == "blobUpload" ? "MB/s" : "entities/s", _knee, _reason);

    private static string Format(double v) => v.ToString(CultureInfo.InvariantCulture);
}
