// Mirrors Microsoft.Azure.Functions.Worker.ApplicationInsights 2.51.0: namespace Microsoft.Azure.Functions.Worker.
// Transcribed from: Azure/azure-functions-dotnet-worker src/DotNetWorker.ApplicationInsights/FunctionsApplicationInsightsExtensions.cs
// (commit 68f0f66e; it also registers TelemetryConfigurationSetup, which reads APPLICATIONINSIGHTS_AUTHENTICATION_STRING for AAD).
// COMPILE-ONLY: no behaviour.
using Microsoft.Extensions.DependencyInjection;
using StorageBench.Functions.CompileSurface;

namespace Microsoft.Azure.Functions.Worker;

public static class FunctionsApplicationInsightsExtensions
{
    public static IServiceCollection ConfigureFunctionsApplicationInsights(this IServiceCollection services) =>
        throw new NotSupportedException(CompileOnly.Message);
}
