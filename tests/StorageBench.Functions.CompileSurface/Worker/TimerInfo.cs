// Mirrors Microsoft.Azure.Functions.Worker.Extensions.Timer 4.3.1: namespace Microsoft.Azure.Functions.Worker.
// Transcribed from: Azure/azure-functions-dotnet-worker extensions/Worker.Extensions.Timer/TimerInfo.cs.
// COMPILE-ONLY: only IsPastDue, the member the app reads (ScheduleStatus is left out).
using StorageBench.Functions.CompileSurface;

namespace Microsoft.Azure.Functions.Worker;

public class TimerInfo
{
    public bool IsPastDue
    {
        get => throw new NotSupportedException(CompileOnly.Message);
        set => throw new NotSupportedException(CompileOnly.Message);
    }
}
