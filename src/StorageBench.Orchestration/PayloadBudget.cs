using System.Text;

namespace StorageBench.Orchestration;

/// <summary>
/// The most any orchestration payload (an activity's or sub-orchestration's input or output, an
/// orchestration's input or output) may weigh as UTF-8 JSON. Durable Task's Azure Storage provider
/// moves a message over 45 KiB — the whole envelope, with the payload escaped inside it — to blob
/// storage, which costs extra round trips on every replay; 32 KiB leaves room for the envelope and
/// the escaping. The in-process host enforces it, so every local run and test checks it.
/// </summary>
public static class PayloadBudget
{
    public const int MaxBytes = 32 * 1024;

    public static int SizeOf(string? json) => json is null ? 0 : Encoding.UTF8.GetByteCount(json);
}

/// <summary>One payload the host saw: what kind (e.g. "activity output"), whose (the activity or orchestrator name), and its size.</summary>
public sealed record PayloadRecord(string Kind, string Name, int Bytes);

/// <summary>A payload over <see cref="PayloadBudget.MaxBytes"/>.</summary>
public sealed class PayloadBudgetExceededException(PayloadRecord payload)
    : Exception($"{payload.Kind} of {payload.Name} is {payload.Bytes:N0} bytes, over the {PayloadBudget.MaxBytes:N0}-byte payload budget")
{
    public PayloadRecord Payload { get; } = payload;
}
