// Mirrors Microsoft.Azure.Functions.Worker.Extensions.Timer 4.3.1: namespace Microsoft.Azure.Functions.Worker.
// Transcribed from: Azure/azure-functions-dotnet-worker extensions/Worker.Extensions.Timer/src/TimerTriggerAttribute.cs.
// COMPILE-ONLY: only the constructor the app uses (Schedule, UseMonitor, RunOnStartup are left out).
using StorageBench.Functions.CompileSurface;

namespace Microsoft.Azure.Functions.Worker;

[AttributeUsage(AttributeTargets.Parameter)]
public sealed class TimerTriggerAttribute : Attribute
{
    public TimerTriggerAttribute(string schedule) => throw new NotSupportedException(CompileOnly.Message);
}
