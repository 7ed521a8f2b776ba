// Mirrors Microsoft.ApplicationInsights.WorkerService 2.23.0: namespace Microsoft.Extensions.DependencyInjection.
// Transcribed from: microsoft/ApplicationInsights-dotnet NETCORE/src/Microsoft.ApplicationInsights.WorkerService/ApplicationInsightsExtensions.cs
// (commit e5b2ab0d). COMPILE-ONLY: the overload the app calls (the others take IConfiguration, an options instance, or nothing).
// The package is not nullable-annotated, hence #nullable disable.
#nullable disable
using Microsoft.ApplicationInsights.WorkerService;
using StorageBench.Functions.CompileSurface;

namespace Microsoft.Extensions.DependencyInjection;

public static partial class ApplicationInsightsExtensions
{
    public static IServiceCollection AddApplicationInsightsTelemetryWorkerService(this IServiceCollection services, Action<ApplicationInsightsServiceOptions> options) =>
        throw new NotSupportedException(CompileOnly.Message);
}
