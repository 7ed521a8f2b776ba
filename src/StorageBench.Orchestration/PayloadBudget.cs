using System.Reflection;
using System.Text;
using System.Text.Json;
using StorageBench.Engine;
using StorageBench.Engine.Measurement;

namespace StorageBench.Orchestration;

/// <summary>
/// The most an orchestration payload (an activity's or sub-orchestration's input or output, an orchestration's input, output
/// or custom status) may weigh as UTF-8 JSON, in two tiers. A control payload gets <see cref="ControlBytes"/>: its size
/// follows the spec's shape, and past that it is growing with the run (a list of every request, a timeline without a bound)
/// and must fail loudly. A payload that carries measured figures (<see cref="CarriesFiguresAttribute"/>) gets the figures
/// tier: its histograms grow with a run's rate and spread of latencies, so it is sized from their worst case, not a guess.
/// Over about 45 KiB such a payload rides DurableTask.AzureStorage's own large-message support: MessageManager
/// (MaxStorageQueuePayloadSizeInBytes, 45 KiB) moves a queue message over it, gzipped, into the hub's own
/// "&lt;hub&gt;-largemessages" container, and AzureTableTrackingStore (MaxTablePropertySizeInBytes, 60 KiB as UTF-16) does the
/// same for a history or instance property; the hub's DeleteAsync deletes that container with its queues and tables. It is the
/// control plane's storage, never the target's. <see cref="PayloadConverter"/> enforces the budget on every local run and test.
/// </summary>
public static class PayloadBudget
{
    /// <summary>Inline in the provider's queue messages (45 KiB, the whole envelope with the payload escaped inside it).</summary>
    public const int ControlBytes = 32 * 1024;

    /// <summary>The most requests one slice times: a day (its longest duration) at 1.16 million requests a second.</summary>
    public const long SliceSamples = 100_000_000_000;

    /// <summary>The most samples any histogram that crosses holds: a step's merge of its 256 slices.</summary>
    public const long MaxSamples = ServiceLimits.MaxSlices * SliceSamples;

    /// <summary>The largest a histogram of the project's range and precision holding <see cref="MaxSamples"/> can be in a payload.</summary>
    public static int HistogramBytes { get; } = LatencyHistograms.LargestJsonBytes(MaxSamples);

    /// <summary>The largest timeline in a payload: <see cref="SliceResult.MaxTimelineBuckets"/> buckets, every number at its longest.</summary>
    public static int TimelineBytes { get; } = SizeOf(JsonSerializer.Serialize(
        new Timeline(long.MinValue, int.MinValue, [.. Enumerable.Repeat(long.MinValue, SliceResult.MaxTimelineBuckets)],
            [.. Enumerable.Repeat(long.MinValue, SliceResult.MaxTimelineBuckets)]), JsonDefaults.Compact));

    /// <summary>The budget of a payload of this type: the figures tier when it carries figures, else the control tier.</summary>
    public static int For(Type type) => type.GetCustomAttribute<CarriesFiguresAttribute>() is { } figures ? Figures(figures) : ControlBytes;

    /// <summary>Its histograms and timelines at their largest, and beside them what a control payload may weigh (for each workload of a step).</summary>
    public static int Figures(CarriesFiguresAttribute carried) =>
        (carried.PerWorkload ? WorkloadList.All.Count : 1) * (carried.Histograms * HistogramBytes + carried.Timelines * TimelineBytes + ControlBytes);

    public static int SizeOf(string? json) => json is null ? 0 : Encoding.UTF8.GetByteCount(json);
}

/// <summary>One payload the converter wrote: the type it carries, its size, and its budget.</summary>
public sealed record PayloadRecord(string Type, int Bytes, int Budget)
{
    public bool IsOver => Bytes > Budget;
}

/// <summary>A payload over its <see cref="PayloadBudget"/>.</summary>
public sealed class PayloadBudgetExceededException(PayloadRecord payload)
    : Exception($"a {payload.Type} payload is {payload.Bytes:N0} bytes, over its {payload.Budget:N0}-byte payload budget " +
        (payload.Budget == PayloadBudget.ControlBytes ? "(a payload without measured figures)" : "(the figures tier: its histograms and timelines at their largest)"))
{
    public PayloadRecord Payload { get; } = payload;
}

/// <summary>
/// The one serializer of everything that crosses the orchestration boundary: the project's compact JSON
/// (<see cref="JsonDefaults.Compact"/>), with the payload budget enforced. durabletask-dotnet's orchestrators and
/// activities use it as their DataConverter; the local task hub wraps it for DurableTask.Core's client and history.
/// </summary>
/// <param name="observer">Called with every payload written (tests measure the largest); none when not given.</param>
public sealed class PayloadConverter(Action<PayloadRecord>? observer = null) : DataConverter
{
    public static PayloadConverter Default { get; } = new();

    public override string? Serialize(object? value)
    {
        if (value is null)
        {
            return null;
        }
        string json = JsonSerializer.Serialize(value, value.GetType(), JsonDefaults.Compact);
        var payload = Record(value, PayloadBudget.SizeOf(json));
        observer?.Invoke(payload);
        return payload.IsOver ? throw new PayloadBudgetExceededException(payload) : json;
    }

    public override object? Deserialize(string? data, Type targetType) =>
        data is null ? null : JsonSerializer.Deserialize(data, targetType, JsonDefaults.Compact);

    /// <summary>
    /// DurableTask.Core serializes an activity's input as its parameters, an object[] of one: the payload is named, and
    /// budgeted, by what it holds.
    /// </summary>
    private static PayloadRecord Record(object value, int bytes)
    {
        Type[] carried = value is object?[] parameters ? [.. parameters.OfType<object>().Select(p => p.GetType())] : [value.GetType()];
        return carried.Length == 0
            ? new PayloadRecord(value.GetType().Name, bytes, PayloadBudget.ControlBytes)
            : new PayloadRecord(string.Join(", ", carried.Select(t => t.Name)), bytes, carried.Max(PayloadBudget.For));
    }
}
