using System.Globalization;

namespace StorageBench.Engine.Spec;

/// <summary>
/// The errors a spec's validation found so far, and the rules every section judges its numbers by: a number is judged
/// (and shown) as the spec wrote it, not as its type held it when read.
/// </summary>
public sealed class SpecChecks(WrittenNumbers written) : List<ValidationError>
{
    public WrittenNumbers Written => written;

    /// <summary>An error unless <paramref name="value"/> lies in [min, max].</summary>
    public void Range(string field, double value, double min, double max, string why = "")
    {
        double v = Real(field, value);
        if (double.IsNaN(v) || v < min || v > max)
        {
            Add(new(field, Shown(field, value), $"must be between {Num(min)} and {Num(max)}{(why.Length > 0 ? " " + why : "")}"));
        }
    }

    /// <summary>The field's number as written (a value beyond its type's range is held at the limit when read).</summary>
    public double Real(string field, double read) => written.Differing(field, read)?.Value ?? read;

    /// <summary>The field's number as an error shows it: as written.</summary>
    public string Shown(string field, double read) => written.Differing(field, read)?.Text ?? Num(read);

    /// <summary>A count shared out over slices: every slice needs at least one of it (<paramref name="unit"/>: "blob", "entity").</summary>
    public void SlicesShare(string prefix, int slices, string countField, long count, string unit)
    {
        if (slices > count && count >= 1)
        {
            Add(new(prefix + "slices", Num(slices), $"exceeds {countField} {Num(count)}: every slice needs at least one {unit}"));
        }
    }

    /// <summary>A duration and its warm-up: the rules every workload's run length follows.</summary>
    public void RunLength(WorkloadSpec w, string prefix)
    {
        Range(prefix + "durationSeconds", w.DurationSeconds, 0, 86_400, "(0 = run the fixed count)");
        Range(prefix + "warmupSeconds", w.WarmupSeconds, 0, 3_600);
        Range(prefix + "warmupOperations", w.WarmupOperations, 0, 1_000_000_000);
        if (w.DurationSeconds > 0 && w.WarmupSeconds >= w.DurationSeconds)
        {
            Add(new(prefix + "warmupSeconds", Num(w.WarmupSeconds), $"must be shorter than durationSeconds {Num(w.DurationSeconds)}, or nothing is measured"));
        }
    }

    public static string Num(double v) => v.ToString(v == Math.Floor(v) && Math.Abs(v) < 1e15 ? "0" : "G6", CultureInfo.InvariantCulture);

    public static string Quote(string? s) => s is null ? "null" : "\"" + s + "\"";
}
