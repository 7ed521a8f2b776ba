using StorageBench.Orchestration;
using CoreDataConverter = DurableTask.Core.Serializing.DataConverter;

namespace StorageBench.TaskHub;

/// <summary>
/// DurableTask.Core's side of <see cref="PayloadConverter"/>: what the TaskHubClient writes as an orchestration's input.
/// Without it the client would store Newtonsoft JSON with $type names, a different shape from everything else.
/// </summary>
internal sealed class CorePayloadConverter(PayloadConverter inner) : CoreDataConverter
{
    public override string Serialize(object value) => inner.Serialize(value) ?? "null";

    public override string Serialize(object value, bool formatted) => Serialize(value);

    public override object Deserialize(string data, Type objectType) => inner.Deserialize(data, objectType)!;
}
