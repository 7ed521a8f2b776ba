using Microsoft.Azure.Functions.Worker;
using Microsoft.Extensions.DependencyInjection;

namespace StorageBench.Functions;

/// <summary>
/// The worker's own logs and dependencies to Application Insights, as the app sends them (the wire test sends its
/// logs the same way). ConfigureFunctionsApplicationInsights reads APPLICATIONINSIGHTS_AUTHENTICATION_STRING for AAD
/// ingestion. Adaptive sampling is off so no warning is dropped; the benchmark's events go through TelemetryEmitter,
/// which never samples.
/// </summary>
public static class WorkerTelemetry
{
    public static IServiceCollection AddWorkerTelemetry(this IServiceCollection services) => services
        .AddApplicationInsightsTelemetryWorkerService(o => o.EnableAdaptiveSampling = false)
        .ConfigureFunctionsApplicationInsights();
}
