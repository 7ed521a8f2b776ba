// Mirrors Microsoft.Azure.Functions.Worker.Extensions.DurableTask 1.16.5: namespace Microsoft.Azure.Functions.Worker.
// Transcribed from: Azure/azure-functions-durable-extension src/Worker.Extensions.DurableTask/DurableClientAttribute.cs,
// OrchestrationTriggerAttribute.cs and ActivityTriggerAttribute.cs (parameter attributes: DurableClientAttribute derives from
// InputBindingAttribute, [AttributeUsage(AttributeTargets.Parameter)]; learn.microsoft.com shows ActivityTriggerAttribute likewise).
// COMPILE-ONLY: parameterless constructors only; TaskHub, ConnectionName and Activity are not used by the app.
using StorageBench.Functions.CompileSurface;

namespace Microsoft.Azure.Functions.Worker;

[AttributeUsage(AttributeTargets.Parameter)]
public sealed class DurableClientAttribute : Attribute
{
    public DurableClientAttribute() => throw new NotSupportedException(CompileOnly.Message);
}

[AttributeUsage(AttributeTargets.Parameter)]
public sealed class OrchestrationTriggerAttribute : Attribute
{
    public OrchestrationTriggerAttribute() => throw new NotSupportedException(CompileOnly.Message);
}

[AttributeUsage(AttributeTargets.Parameter)]
public sealed class ActivityTriggerAttribute : Attribute
{
    public ActivityTriggerAttribute() => throw new NotSupportedException(CompileOnly.Message);
}
