using System.Text;
using System.Text.Json;
using StorageBench.Engine;

namespace StorageBench.Orchestration;

/// <summary>
/// The most any orchestration payload (an activity's or sub-orchestration's input or output, an
/// orchestration's input, output or custom status) may weigh as UTF-8 JSON. Durable Task's Azure Storage provider
/// moves a message over 45 KiB — the whole envelope, with the payload escaped inside it — to blob
/// storage, which costs extra round trips on every replay; 32 KiB leaves room for the envelope and
/// the escaping. <see cref="PayloadConverter"/> enforces it on every local run and test.
/// </summary>
public static class PayloadBudget
{
    public const int MaxBytes = 32 * 1024;

    public static int SizeOf(string? json) => json is null ? 0 : Encoding.UTF8.GetByteCount(json);
}

/// <summary>One payload the converter wrote: the value's type and its size.</summary>
public sealed record PayloadRecord(string Type, int Bytes);

/// <summary>A payload over <see cref="PayloadBudget.MaxBytes"/>.</summary>
public sealed class PayloadBudgetExceededException(PayloadRecord payload)
    : Exception($"a {payload.Type} payload is {payload.Bytes:N0} bytes, over the {PayloadBudget.MaxBytes:N0}-byte payload budget")
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
        var payload = new PayloadRecord(value.GetType().Name, PayloadBudget.SizeOf(json));
        observer?.Invoke(payload);
        return payload.Bytes > PayloadBudget.MaxBytes ? throw new PayloadBudgetExceededException(payload) : json;
    }

    public override object? Deserialize(string? data, Type targetType) =>
        data is null ? null : JsonSerializer.Deserialize(data, targetType, JsonDefaults.Compact);
}
