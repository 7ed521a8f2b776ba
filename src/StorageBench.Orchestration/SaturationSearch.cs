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
        double throttledShare = w.Operations == 0 ? 0 : (double)w.Throttled / w.Operations;
        if (throttledShare > spec.MaxThrottledShare || w.LatencyMs.P99 > spec.MaxP99Ms)
        {
            _knee = value;
            _reason = throttledShare > spec.MaxThrottledShare
                ? $"at {Format(value)} throttled share {throttledShare:P2} exceeded {spec.MaxThrottledShare:P2}"
                : $"at {Format(value)} p99 {w.LatencyMs.P99:0.#} ms exceeded {spec.MaxP99Ms:0.#} ms";
            return false;
        }
        _highest = value;
        _atHighest = w;
        return true;
    }

    public SaturationResult Result() => new(spec.Parameter, _highest,
        _atHighest?.Throughput.EntitiesPerSecond ?? _atHighest?.Throughput.MegabytesPerSecond,
        _workload == "blobUpload" ? "MB/s" : "entities/s", _knee, _reason);

    private static string Format(double v) => v.ToString(CultureInfo.InvariantCulture);
}
