// Mirrors Microsoft.ApplicationInsights.WorkerService 2.23.0: namespace Microsoft.ApplicationInsights.WorkerService.
// Transcribed from: microsoft/ApplicationInsights-dotnet NETCORE/src/Shared/Extensions/ApplicationInsightsServiceOptions.cs
// (commit 1ae669c0; compiled without AI_ASPNETCORE_WEB for the WorkerService package). COMPILE-ONLY: only EnableAdaptiveSampling.
#nullable disable
using StorageBench.Functions.CompileSurface;

namespace Microsoft.ApplicationInsights.WorkerService;

public class ApplicationInsightsServiceOptions
{
    public bool EnableAdaptiveSampling
    {
        get => throw new NotSupportedException(CompileOnly.Message);
        set => throw new NotSupportedException(CompileOnly.Message);
    }
}
