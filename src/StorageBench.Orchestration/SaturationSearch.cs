using System.Globalization;

namespace StorageBench.Orchestration;

/// <summary>
/// The search the seed authors did by hand: step the load up and stop at the first step whose
/// throttled share or p99 breaks its bound, or whose throughput stopped growing with the load (past the
/// knee: the extra requests only queue, and latency rises as Little's law says). Judges only the
/// workload the parameter belongs to.
/// </summary>
public sealed class SaturationSearch(SaturationSpec spec)
{
    private readonly string _workload = spec.Parameter.Split('.')[0];
    private double? _highest;
    private WorkloadSummary? _atHighest;
    private double? _knee;
    private double? _kneeThroughput;
    private string _stoppedBy = "max-reached";
    private string _reason = "reached saturation.max without breaking a bound, and throughput grew with every step";

    public string Parameter => spec.Parameter;

    public IEnumerable<double> Values => spec.Values();

    /// <summary>Records a step; false when it broke a bound or went past the knee (the search stops).</summary>
    public bool Continue(double value, IReadOnlyList<WorkloadSummary> step)
    {
        var w = step.FirstOrDefault(s => s.Workload == _workload);
        if (w is null)
        {
            _reason = $"step {Format(value)} produced no {_workload} result";
            _stoppedBy = "step-failed";
            return false;
        }
        // Every failed request counts against the bound, not only 503s: a step whose requests time out
        // or error is not sustainable either. A step with no successful request has no p99 to judge.
        double failedShare = w.Operations == 0 ? 1 : (double)w.Failed / w.Operations;
        var (rule, broke) = w.LatencyMs.Samples == 0 ? ("no-success", $"at {Format(value)} no request succeeded")
            : failedShare > spec.MaxFailedShare ? ("failed-share", $"at {Format(value)} failed share {failedShare:P2} (throttled {w.Throttled}, timed out {w.TimedOut}, other {w.Failed - w.Throttled - w.TimedOut}) exceeded {spec.MaxFailedShare:P2}")
            : w.LatencyMs.P99 > spec.MaxP99Ms ? ("p99", $"at {Format(value)} p99 {w.LatencyMs.P99:0.#} ms exceeded {spec.MaxP99Ms:0.#} ms")
            : PastTheKnee(value, w) is { } flat ? ("throughput-growth", flat)
            : ((string?)null, (string?)null);
        if (broke is not null)
        {
            _knee = value;
            _kneeThroughput = Rate(w);
            _reason = broke;
            _stoppedBy = rule!;
            return false;
        }
        _highest = value;
        _atHighest = w;
        return true;
    }

    /// <summary>
    /// Why this step is past the knee (null when it is not): the parameter grew by g over the last useful
    /// step, and throughput by less than minThroughputGrowth × g.
    /// </summary>
    private string? PastTheKnee(double value, WorkloadSummary w)
    {
        if (spec.MinThroughputGrowth <= 0 || _highest is not { } previous || _atHighest is not { } before || previous <= 0 || value <= previous
            || Rate(before) is not > 0 || Rate(w) is not { } rate)
        {
            return null;
        }
        double parameterGrowth = value / previous - 1;
        double growth = rate / Rate(before)!.Value - 1;
        double needed = spec.MinThroughputGrowth * parameterGrowth;
        if (growth >= needed)
        {
            return null;
        }
        // Little's law: with throughput flat, the extra requests in flight wait, and mean latency grows with them.
        return string.Create(CultureInfo.InvariantCulture,
            $"past the knee at {Format(value)}: throughput grew {growth:+0.0%;-0.0%} ({Rate(before):#,0.#} → {rate:#,0.#} {Unit}) while {spec.Parameter} grew {parameterGrowth:+0%} " +
            $"({Format(previous)} → {Format(value)}), under the {needed:0.0%} required (minThroughputGrowth {spec.MinThroughputGrowth:0.##} of the parameter's growth); " +
            $"mean latency {before.LatencyMs.Mean:#,0.#} → {w.LatencyMs.Mean:#,0.#} ms, p50 {before.LatencyMs.P50:#,0.#} → {w.LatencyMs.P50:#,0.#} ms: the extra load queued (Little's law)");
    }

    /// <summary>The search ended because a step could not run (the run's errors say why): no knee was found.</summary>
    public void Stop(double value, string why)
    {
        _reason = $"stopped at {Format(value)}: {why}";
        _stoppedBy = "step-failed";
    }

    public SaturationResult Result() => new(spec.Parameter, _highest, _atHighest is null ? null : Rate(_atHighest), Unit, _knee, _reason)
    {
        StoppedBy = _stoppedBy, ThroughputAtKnee = _kneeThroughput,
    };

    private string Unit => WorkloadKind.Of(_workload).RateUnit;

    private static double? Rate(WorkloadSummary w) => w.Throughput.EntitiesPerSecond ?? w.Throughput.MegabytesPerSecond;

    private static string Format(double v) => v.ToString(CultureInfo.InvariantCulture);
}
