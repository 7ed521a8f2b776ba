using System.Globalization;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Workloads;

namespace StorageBench.Cli;

/// <summary>
/// A run's progress on the console. In a terminal: one line, rewritten in place about once a second.
/// Otherwise (a pipe, a CI log): plain lines — one when the phase changes and one every
/// <see cref="PlainInterval"/> while a workload runs — so logs stay short and readable.
/// </summary>
public sealed class ProgressDisplay(TextWriter output, bool inPlace)
{
    public static readonly TimeSpan PlainInterval = TimeSpan.FromSeconds(10);
    private static readonly TimeSpan InPlaceInterval = TimeSpan.FromSeconds(1);

    private string? _phase;
    private DateTime _phaseSince;
    private DateTime _lastShown;
    private long _lastUnits;
    private bool _lineOpen;

    /// <summary>Whether live figures given now would be shown: the caller reads the slices' progress only then.</summary>
    public bool ShowsFiguresAt(DateTime nowUtc) => nowUtc - _lastShown >= Interval;

    private TimeSpan Interval => inPlace ? InPlaceInterval : PlainInterval;

    public async Task ShowAsync(RunProgress p, DateTime nowUtc)
    {
        string phase = Phase(p);
        bool changed = phase != _phase;
        if (!changed && nowUtc - _lastShown < Interval)
        {
            return;
        }
        if (changed)
        {
            (_phaseSince, _lastUnits) = (nowUtc, 0);
        }
        _phase = phase;
        _lastShown = nowUtc;
        string figures = p.Live is { } l ? Figures(l) + StartedOver(l) : $"{(nowUtc - _phaseSince).TotalSeconds:0} s so far";
        if (inPlace)
        {
            // Carriage return and erase-line: the same line again, whatever its length was.
            await output.WriteAsync($"\r\u001b[2K  {phase}{(changed && p.Live is null ? Doing(p.Phase) + "..." : ": " + figures)}").ConfigureAwait(false);
            await output.FlushAsync().ConfigureAwait(false);
            _lineOpen = true;
        }
        else if (changed)
        {
            await output.WriteLineAsync($"  {phase}{Doing(p.Phase)}...").ConfigureAwait(false);
        }
        else
        {
            // A phase without figures (verifying, seeding, cleaning up) still says it is at it, however long it takes.
            await output.WriteLineAsync($"  {phase}: {figures}").ConfigureAwait(false);
        }
    }

    /// <summary>
    /// After a resume a slice that runs again starts its count over (only one execution's writes count), so the total can
    /// fall: said, rather than shown as a count going backwards unexplained.
    /// </summary>
    private string StartedOver(WorkloadProgress live)
    {
        bool fell = live.Units < _lastUnits;
        _lastUnits = live.Units;
        return fell ? " (lower than before: a slice run again starts its count over)" : "";
    }

    /// <summary>What a phase without figures is doing, in its first line.</summary>
    private static string Doing(string phase) => phase == StepOrchestrator.VerifyingPhase
        ? " (counting what is stored; deleting writes no result counts)"
        : "";

    /// <summary>Erases the in-place line: its last figures are up to a second old, and the summary that follows has the final ones.</summary>
    public async Task EndAsync()
    {
        if (_lineOpen)
        {
            await output.WriteAsync("\r\u001b[2K").ConfigureAwait(false);
            await output.FlushAsync().ConfigureAwait(false);
            _lineOpen = false;
        }
    }

    public static string Phase(RunProgress p) =>
        $"{(p.Steps > 1 ? $"step {p.Step + 1}/{p.Steps}: " : "")}{p.Phase}{(p.Workload is null ? "" : $" {p.Workload} on {p.Slices} slice(s)")}";

    /// <summary>"23,400/40,000 entities (58%), 12,345 entities/s, throttled 0, failed 0" — or elapsed/duration for a timed run.</summary>
    public static string Figures(WorkloadProgress w)
    {
        var kind = WorkloadKind.Of(w.Workload);
        // Counted units shown in a larger unit (bytes as MB) keep one decimal.
        string Amount(double units) => (units / kind.CountedPerUnit).ToString(kind.CountedPerUnit > 1 ? "N1" : "N0", CultureInfo.InvariantCulture);
        string unit = kind.Unit;
        string done = w.PlannedUnits > 0
            ? $"{Amount(w.Units)}/{Amount(w.PlannedUnits)} {unit} ({100.0 * w.Units / w.PlannedUnits:0}%)"
            : $"{Math.Min(w.ElapsedSeconds, w.DurationSeconds):0}/{w.DurationSeconds:0} s, {Amount(w.Units)} {unit}";
        return string.Create(CultureInfo.InvariantCulture,
            $"{done}, {Amount(w.UnitsPerSecond)} {unit}/s, throttled {w.Throttled:N0}, failed {w.Failed:N0}");
    }
}
